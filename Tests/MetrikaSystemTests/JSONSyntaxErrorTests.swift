import Foundation
import MetrikaSystem
import Testing

/// The config file's syntax check: silent on valid JSON (whatever Foundation reads as such, except a
/// trailing comma), and on invalid JSON the line, column and what was expected.
@Suite("JSON syntax errors located")
struct JSONSyntaxErrorTests {
    @Test(arguments: [
        "{}", " [ ] ",
        #"{"a": [1, -2.5e+3, 0, 0.0, 1E9, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"], "б": {"c": {}}}"#,
        "\n\t{\"counter\": [1001, 1002]}\r\n", #""text""#, "12"
    ])
    func validJSONIsNotAnError(text: String) throws {
        #expect(JSONSyntaxError.locate(in: Data(text.utf8)) == nil)
        #expect(
            (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil,
            "Foundation disagrees")
    }

    @Test(arguments: [
        (#"{"counter": 1001,"#, 1, 18, "the file ends inside an object (a '}' is missing)"),
        ("{\"counter\": 1001,\n\n", 1, 18, "the file ends inside an object (a '}' is missing)"),
        ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}' after a member, found '\"'"),
        (#"{"a": [1, 2,]}"#, 1, 13, "expected a value, found ']' (a ',' before a ']' is not allowed)"),
        (#"{"a": tru}"#, 1, 10, "expected true, found '}'"),
        (#"{"a" 1}"#, 1, 6, "expected ':' after the member name, found '1'"),
        (#"{"a": 01}"#, 1, 7, "a number must not start with 0"),
        (#"{"ä": "x"#, 1, 7, "a string that is never closed (a '\"' is missing)"),
        (#"{"a": "\q"}"#, 1, 9, "an unknown escape \\q in a string"),
        (#"{"a": 1} x"#, 1, 10, "unexpected text after the end of the JSON value"),
        ("", 1, 1, "the file ends where a value was expected"),
        (
            #"{"a": 'x'}"#, 1, 7,
            "expected a value (a string in double quotes, a number, an object, a list, true, false or null), found '''"
        )
    ])
    func invalidJSONSaysWhere(text: String, line: Int, column: Int, problem: String) {
        #expect(
            JSONSyntaxError.locate(in: Data(text.utf8)) == JSONSyntaxError(line: line, column: column, problem: problem)
        )
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 100_000)
        #expect(JSONSyntaxError.locate(in: Data(text.utf8))?.problem == "nested more than 512 levels deep")
    }
}
