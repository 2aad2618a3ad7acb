import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel

/// Helpers shared by the chart and mail tests: running the independent Python checkers, temporary
/// directories, SVG goldens, and sample data.
enum ChartTestSupport {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// Runs `python3 scripts/<script> <arguments>`; stdout and stderr are drained before waiting.
    static func runPython(_ script: String, _ arguments: [String]) throws -> (
        status: Int32, stdout: Data, stderr: String
    ) {
        try ToolCheck.require("python3", package: "python3")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", testsDirectory.appendingPathComponent("scripts/" + script).path] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, stdout, String(decoding: stderr, as: UTF8.self))
    }

    /// A fresh directory under the system temporary directory.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-chart-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// What check_svg.py reports about a document.
    struct SVGReport: Decodable {
        let ok: Bool
        let problems: [String]
        let texts: [String]?
        let title: String?
        let desc: String?
        let elements: [String: Int]?
        let viewBox: String?
    }

    /// Writes `svg` to a temporary file and has Python's XML parser check it.
    static func checkSVG(_ svg: String) throws -> SVGReport {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("chart.svg")
        try Data(svg.utf8).write(to: file)
        let result = try runPython("check_svg.py", [file.path])
        #expect(result.status == 0, "check_svg.py: \(result.stderr) \(String(decoding: result.stdout, as: UTF8.self))")
        return try JSONDecoder().decode(SVGReport.self, from: result.stdout)
    }

    /// Compares `svg` byte for byte with `Golden/svg/<name>.svg`; `METRIKA_RECORD_GOLDEN=1` rewrites it
    /// first (then convert it with rsvg-convert and look at the picture before committing).
    static func expectGolden(_ svg: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        try Golden.expect(
            svg, matches: testsDirectory.appendingPathComponent("Golden/svg/\(name).svg"),
            sourceLocation: sourceLocation)
    }

    // MARK: - Sample data

    static let shop = Counter(id: 44_147_844, name: "Shop", site: "shop.example")
    static let blog = Counter(id: 51_000_123, name: "Блог о кофе", site: "blog.example")

    static func day(_ iso: String) -> Day { Day(iso: iso)! }

    static func range(_ from: String, _ to: String) -> DateRange { DateRange(from: day(from), to: day(to))! }

    /// A deterministic wavy series: a weekly rhythm on a slow trend, no randomness.
    static func wave(_ range: DateRange, base: Double, amplitude: Double, trend: Double = 0, phase: Int = 0) -> [(
        day: Day, value: Double?
    )] {
        range.days.enumerated().map { index, day in
            let weekly = [0.0, 0.35, 0.5, 0.45, 0.3, -0.55, -0.85][(day.weekday - 1 + phase) % 7]
            let slow = Double((index * 37 + phase * 11) % 17) / 17.0 - 0.5
            return (day, (base + trend * Double(index) + amplitude * (weekly + 0.4 * slow)).rounded())
        }
    }
}
