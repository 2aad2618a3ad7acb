import Foundation

/// Where a hand-written JSON file (config.json) breaks, as a person fixing it needs to hear it: line,
/// column and what was expected there. Foundation's parser says only "Unexpected end of file" or a
/// character offset that is sometimes past the mistake, so this small strict scanner (RFC 8259 syntax,
/// no values kept) finds the first error itself. Nil when the bytes are valid JSON.
package struct JSONSyntaxError: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the first error.
    package var line: Int
    /// 1-based column (in characters) on that line.
    package var column: Int
    /// What is wrong there: `expected ',' or '}' after a member`, `the file ends inside an object`.
    package var problem: String

    /// An error at a place.
    package init(line: Int, column: Int, problem: String) {
        self.line = line
        self.column = column
        self.problem = problem
    }

    /// `line 3, column 5: expected ',' or '}' after a member`.
    package var description: String { "line \(line), column \(column): \(problem)" }

    /// The first syntax error in `data`, or nil when it is one valid JSON value (with whitespace around).
    package static func locate(in data: Data) -> JSONSyntaxError? {
        var scanner = Scanner(bytes: Array(data))
        do {
            scanner.skipWhitespace()
            try scanner.value(depth: 0)
            scanner.skipWhitespace()
            if scanner.index < scanner.bytes.count {
                throw scanner.fail("unexpected text after the end of the JSON value")
            }
            return nil
        } catch let error as Failure {
            return scanner.position(of: error)
        } catch {
            return nil
        }
    }

    private struct Failure: Error {
        var offset: Int
        var problem: String
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        func fail(_ problem: String) -> Failure { Failure(offset: index, problem: problem) }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// What the byte at `index` looks like in a message.
        func shown() -> String {
            guard !atEnd else { return "the end of the file" }
            let byte = bytes[index]
            if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return byte < 0x80 ? "a control character" : "a non-ASCII character"
        }

        mutating func value(depth: Int) throws {
            guard depth < 512 else { throw fail("nested more than 512 levels deep") }
            guard !atEnd else { throw fail("the file ends where a value was expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default:
                throw fail(
                    "expected a value (a string in double quotes, a number, an object, a list, true, false or null), found \(shown())"
                )
            }
        }

        mutating func object(depth: Int) throws {
            index += 1
            skipWhitespace()
            if !atEnd, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                guard !atEnd else { throw fail("the file ends inside an object (a '}' is missing)") }
                guard bytes[index] == UInt8(ascii: "\"") else {
                    throw fail(
                        "expected a member name in double quotes, found \(shown())"
                            + (bytes[index] == UInt8(ascii: "}") ? " (a ',' before a '}' is not allowed)" : ""))
                }
                try string()
                skipWhitespace()
                guard !atEnd else { throw fail("the file ends inside an object (a '}' is missing)") }
                guard bytes[index] == UInt8(ascii: ":") else {
                    throw fail("expected ':' after the member name, found \(shown())")
                }
                index += 1
                skipWhitespace()
                try value(depth: depth + 1)
                skipWhitespace()
                guard !atEnd else { throw fail("the file ends inside an object (a '}' is missing)") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return
                }
                throw fail("expected ',' or '}' after a member, found \(shown())")
            }
        }

        mutating func array(depth: Int) throws {
            index += 1
            skipWhitespace()
            if !atEnd, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                guard !atEnd else { throw fail("the file ends inside a list (a ']' is missing)") }
                if bytes[index] == UInt8(ascii: "]") {
                    throw fail("expected a value, found ']' (a ',' before a ']' is not allowed)")
                }
                try value(depth: depth + 1)
                skipWhitespace()
                guard !atEnd else { throw fail("the file ends inside a list (a ']' is missing)") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return
                }
                throw fail("expected ',' or ']' after a list item, found \(shown())")
            }
        }

        mutating func string() throws {
            let start = index
            index += 1
            while !atEnd {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return
                }
                if byte < 0x20 {
                    throw fail(
                        byte == 0x0A
                            ? "a line break inside a string (a closing '\"' is missing?)"
                            : "a control character inside a string")
                }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard !atEnd else { break }
                    let escape = bytes[index]
                    if escape == UInt8(ascii: "u") {
                        let hex = bytes[min(bytes.count, index + 1)..<min(bytes.count, index + 5)]
                        guard hex.count == 4,
                            hex.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) })
                        else {
                            throw fail("\\u must be followed by four hexadecimal digits")
                        }
                        index += 5
                        continue
                    }
                    guard "\"\\/bfnrt".utf8.contains(escape) else {
                        throw fail("an unknown escape \\\(Character(Unicode.Scalar(escape))) in a string")
                    }
                }
                index += 1
            }
            index = start
            throw fail("a string that is never closed (a '\"' is missing)")
        }

        mutating func number() throws {
            func digits() -> Int {
                let start = index
                while !atEnd, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
                return index - start
            }
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let leadingZero = !atEnd && bytes[index] == UInt8(ascii: "0")
            let whole = digits()
            guard whole > 0 else { throw fail("expected a digit, found \(shown())") }
            if leadingZero && whole > 1 { throw Failure(offset: start, problem: "a number must not start with 0") }
            if !atEnd, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw fail("expected a digit after the decimal point, found \(shown())") }
            }
            if !atEnd, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if !atEnd, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw fail("expected a digit in the exponent, found \(shown())") }
            }
        }

        mutating func literal(_ word: String) throws {
            for expected in word.utf8 {
                guard !atEnd, bytes[index] == expected else { throw fail("expected \(word), found \(shown())") }
                index += 1
            }
        }

        /// Line and column of a failure's byte offset (columns count characters, not bytes).
        func position(of failure: Failure) -> JSONSyntaxError {
            var offset = min(failure.offset, bytes.count)
            // A file that ends too early is cut after its last character, not after the blank lines
            // an editor adds: point there.
            if offset == bytes.count {
                while offset > 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset - 1]) { offset -= 1 }
            }
            var line = 1
            var lineStart = 0
            for position in 0..<offset where bytes[position] == 0x0A {
                line += 1
                lineStart = position + 1
            }
            let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
            return JSONSyntaxError(line: line, column: column, problem: failure.problem)
        }
    }
}
