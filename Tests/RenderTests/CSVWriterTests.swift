import Foundation
import Testing
@testable import MetrikaKit

@Suite("CSV writer")
struct CSVWriterTests {
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
        ("=SUM(A1:A9)", "=SUM(A1:A9)"),
        ("Интернет, магазин", "\"Интернет, магазин\""),
        ("日本語", "日本語"),
    ])
    func escape(_ field: String, expected: String) {
        #expect(CSVWriter.escape(field) == expected)
    }

    @Test(arguments: [
        (["date", "visits"], "date,visits\r\n"),
        (["a", ""], "a,\r\n"),
        (["", ""], ",\r\n"),
        ([""], "\"\"\r\n"),
        ([], "\r\n"),
        (["x,y", "1"], "\"x,y\",1\r\n"),
    ])
    func record(_ fields: [String], expected: String) {
        var out = ""
        CSVWriter().write(fields, to: &out)
        #expect(out == expected)
    }

    @Test func reportWithHeader() {
        var out = ""
        let writer = CSVWriter()
        writer.write(["date", "traffic_source", "visits"], to: &out)
        writer.write(["2024-05-01", "Поисковые системы", "120"], to: &out)
        writer.write(["2024-05-01", "Ad \"spring\", 2024", "7"], to: &out)
        #expect(out == "date,traffic_source,visits\r\n2024-05-01,Поисковые системы,120\r\n2024-05-01,\"Ad \"\"spring\"\", 2024\",7\r\n")
    }

    // MARK: - Round trip through an independent parser

    @Test func roundTripThroughPythonCSVModule() throws {
        let rows: [[String]] = [
            ["date", "traffic_source", "visits"],
            ["2024-05-01", "Интернет-магазин «Ромашка», \"лучший\"\nвторая строка", "120"],
            ["2024-05-02", "crlf\r\ninside", ""],
            ["2024-05-03", "=1+1", "日本語, 👨‍👩‍👧"],
            ["", "", ""],
            ["only"],
        ]
        var text = ""
        let writer = CSVWriter()
        for row in rows { writer.write(row, to: &text) }

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("metrika-render-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.csv")
        try Data(text.utf8).write(to: file)

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("scripts/csv_roundtrip.py")
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

    // MARK: - Streaming

    /// Counts what arrives without keeping it, like a pipe to stdout would.
    struct CountingStream: TextOutputStream {
        var bytes = 0
        var lineFeeds = 0
        mutating func write(_ string: String) {
            bytes += string.utf8.count
            for byte in string.utf8 where byte == 0x0A { lineFeeds += 1 }
        }
    }

    @Test func streamsOneHundredThousandRowsAsTheyAreWritten() {
        let writer = CSVWriter()
        // The writer has no stored properties: it cannot be holding rows.
        #expect(MemoryLayout<CSVWriter>.size == 0)
        var stream = CountingStream()
        let row = ["2024-05-01", "1234", "Интернет-магазин, «Ромашка»"]
        var everyRowArrivedAtOnce = true
        for index in 0..<100_000 {
            writer.write(row, to: &stream)
            if stream.lineFeeds != index + 1 || stream.bytes != (index + 1) * 71 {
                everyRowArrivedAtOnce = false
            }
        }
        #expect(everyRowArrivedAtOnce)
        // 10 + 1 + 4 + 1 + (2 + 31 + 2 + 18) + 2 = 71 bytes a row: the third field is quoted for its comma.
        #expect(stream.bytes == 7_100_000)
        #expect(stream.lineFeeds == 100_000)
    }
}
