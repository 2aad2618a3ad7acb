import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaRender
@testable import MetrikaSystem

@Suite("CSV writer", .ownThreads)
struct CSVWriterTests {
    /// One field as the writer puts it in a record.
    static func field(_ text: String, isText: Bool = true, _ writer: CSVWriter = CSVWriter()) -> String {
        let out = OutputWriter()
        try! writer.writeField(text, isText: isText, to: out)
        return out.text
    }

    /// Whole records as the writer writes them.
    static func records(_ rows: [[String]], numbersFrom: Int? = nil, _ writer: CSVWriter = CSVWriter()) -> String {
        let out = OutputWriter()
        for row in rows { try! writer.write(row, numbersFrom: numbersFrom, to: out) }
        return out.text
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("", ""),
        ("a,b", "\"a,b\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("\"", "\"\"\"\""),
        ("line\nbreak", "\"line\nbreak\""),
        ("cr\rhere", "\"cr\rhere\""),
        ("crlf\r\nhere", "\"crlf\r\nhere\""),
        (" spaced ", " spaced "),
        ("semi;colon", "semi;colon"),
        ("Интернет, магазин", "\"Интернет, магазин\""),
        ("日本語", "日本語"),
        ("a=b+c", "a=b+c")
    ])
    func escape(_ text: String, expected: String) {
        #expect(Self.field(text) == expected)
        #expect(Self.field(text, CSVWriter(formulas: .keep)) == expected, "nothing to defuse")
    }

    /// OWASP's CSV injection advice: text a spreadsheet would run as a formula gets a leading `'`,
    /// inside the quotes when the field is quoted; `keep` gives the bytes, merely escaped.
    @Test(arguments: [
        ("=SUM(A1:A9)", "'=SUM(A1:A9)", "=SUM(A1:A9)"),
        ("+7 (495) 000-00-00", "'+7 (495) 000-00-00", "+7 (495) 000-00-00"),
        ("-2+3", "'-2+3", "-2+3"),
        ("@SUM(1)", "'@SUM(1)", "@SUM(1)"),
        ("\tcmd", "'\tcmd", "\tcmd"),
        ("\r=1", "\"'\r=1\"", "\"\r=1\""),
        (
            "=HYPERLINK(\"http://evil\",\"x\")", "\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\"",
            "\"=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\""
        )
    ])
    func formulasAreDefused(_ text: String, defused: String, kept: String) {
        #expect(Self.field(text) == defused)
        #expect(Self.field(text, CSVWriter(formulas: .keep)) == kept)
    }

    @Test func numbersAreNeverDefused() {
        #expect(Self.field("-5", isText: false) == "-5")
        #expect(Self.field("-0.25", isText: false) == "-0.25")
        #expect(
            Self.records([["-1", "-5", "+3"]], numbersFrom: 1) == "'-1,-5,+3\n",
            "text before numbersFrom, numbers after")
    }

    @Test(arguments: [
        (["date", "visits"], "date,visits\n"),
        (["a", ""], "a,\n"),
        (["", ""], ",\n"),
        ([""], "\"\"\n"),
        ([], "\n"),
        (["x,y", "1"], "\"x,y\",1\n")
    ])
    func record(_ fields: [String], expected: String) {
        #expect(Self.records([fields]) == expected)
        #expect(Self.records([fields], CSVWriter(lineEnding: .crlf)) == expected.dropLast() + "\r\n")
    }

    @Test func reportWithHeader() {
        let text = Self.records(
            [
                ["date", "traffic_source", "visits"],
                ["2024-05-01", "Поисковые системы", "120"],
                ["2024-05-01", "Ad \"spring\", 2024", "7"]
            ], CSVWriter(lineEnding: .crlf))
        #expect(
            text
                == "date,traffic_source,visits\r\n2024-05-01,Поисковые системы,120\r\n2024-05-01,\"Ad \"\"spring\"\", 2024\",7\r\n"
        )
    }

    // MARK: - Round trip through an independent parser

    @Test func roundTripThroughPythonCSVModule() throws {
        let rows: [[String]] = [
            ["date", "traffic_source", "visits"],
            ["2024-05-01", "Интернет-магазин «Ромашка», \"лучший\"\nвторая строка", "120"],
            ["2024-05-02", "crlf\r\ninside", ""],
            ["2024-05-03", "=1+1", "日本語, 👨‍👩‍👧"],
            ["", "", ""],
            ["only"]
        ]
        // `keep` and CRLF: the parser must give back exactly the bytes, whatever the line ends.
        let text = Self.records(rows, CSVWriter(lineEnding: .crlf, formulas: .keep))

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("metrika-render-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.csv")
        try Data(text.utf8).write(to: file)

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "scripts/csv_roundtrip.py")
        let result = try runPython(script: script.path, argument: file.path)
        #expect(result.status == 0, "python3 stderr: \(result.stderr)")
        let parsed = try JSONDecoder().decode([[String]].self, from: result.stdout)
        #expect(parsed == rows)
    }

    private func runPython(script: String, argument: String) throws -> (status: Int32, stdout: Data, stderr: String) {
        try ToolCheck.require("python3", package: "python3")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, argument]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain both pipes before waiting so a full pipe buffer cannot deadlock the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, stdout, String(decoding: stderr, as: UTF8.self))
    }

    @Test func roundTripWithLineFeedsAndDefusedFormulas() throws {
        let rows: [[String]] = [["phrase", "visits"], ["=1+1", "-3"], ["line\nbreak, \"quoted\"", "7"]]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-render-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.csv")
        try Data(Self.records(rows, numbersFrom: 1).utf8).write(to: file)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "scripts/csv_roundtrip.py")
        let result = try runPython(script: script.path, argument: file.path)
        #expect(result.status == 0, "python3 stderr: \(result.stderr)")
        let parsed = try JSONDecoder().decode([[String]].self, from: result.stdout)
        #expect(parsed == [["phrase", "visits"], ["'=1+1", "-3"], ["line\nbreak, \"quoted\"", "7"]])
    }
}
