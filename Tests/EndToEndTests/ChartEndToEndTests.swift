import Foundation
import Testing

/// `metrika chart` run as a user runs it: the built binary against the simulator over loopback, its
/// SVG checked by Python's XML parser.
@Suite(.serialized) struct ChartEndToEndTests {
    static let scripts = Binaries.repositoryRoot.appendingPathComponent("Tests/RenderTests/scripts")

    struct SVGReport: Decodable {
        let ok: Bool
        let problems: [String]
        let texts: [String]?
        let viewBox: String?
        let elements: [String: Int]?
    }

    static func checkSVG(atPath path: String) throws -> SVGReport {
        try ToolCheck.require("python3", package: "python3")
        let result = try runProcess("/usr/bin/env", ["python3", scripts.appendingPathComponent("check_svg.py").path, path], environment: ProcessInfo.processInfo.environment)
        try #require(result.status == 0, "check_svg.py: \(result.stderr) \(result.stdout)")
        return try JSONDecoder().decode(SVGReport.self, from: Data(result.stdout.utf8))
    }

    @Test func drawsTwoCountersIntoAFileThatParsesAndKeepsHostileNamesInert() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let output = home.path + "/out/chart.svg"
        try FileManager.default.createDirectory(atPath: home.path + "/out", withIntermediateDirectories: true)
        let result = try metrika(["chart", "--counter", "1001,1002", "--metrics", "visits,bounceRate", "--from", "13daysAgo", "--output", output],
                                 environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(!svg.contains("<script"))
        let report = try Self.checkSVG(atPath: output)
        #expect(report.ok, "\(report.problems)")
        #expect(report.viewBox == "0 0 800 560", "two units: one extra panel")
        let texts = report.texts ?? []
        // Counter 1002 is named `<script>alert("x")</script> & Co` in the simulator's fixtures.
        #expect(texts.contains("<script>alert(\"x\")</script> & Co · Visits"))
        #expect(texts.contains("Интернет-магазин «Ромашка» · Bounce rate"))
        #expect(texts.contains("Bounce rate (%)"))
        #expect(report.elements?["script"] == nil)
        // Atomic write: nothing but the chart is left in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path + "/out") == ["chart.svg"])
    }

    @Test func writesToStandardOutputWithDashAndHonoursTheSize() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(["chart", "--counter", "1001", "--width", "640", "--height", "300", "--output", "-"],
                                 environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
        let file = home.path + "/stdout.svg"
        try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let report = try Self.checkSVG(atPath: file)
        #expect(report.ok, "\(report.problems)")
        #expect(report.viewBox == "0 0 640 300")
        #expect(report.texts?.contains("today (incomplete)") == true, "the simulator's today is still growing")
    }

    @Test func anOutputPathThatCannotBeCreatedIsExit73() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let output = home.path + "/missing/dir/chart.svg"
        let result = try metrika(["chart", "--counter", "1001", "--output", output], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 73)
        #expect(result.stderr.contains("Error: cannot write \(output): No such file or directory"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    static let usageCases: [([String], String)] = [
        (["chart", "--counter", "1001"], "Missing --output"),
        (["chart", "--output", "x.svg"], "Missing --counter"),
        (["chart", "--counter", "1001", "--width", "10", "--output", "x.svg"], "--width must be a whole number from 240"),
        (["chart", "--counter", "1001", "--metrics", "nonsense", "--output", "x.svg"], "Unknown metric 'nonsense'"),
    ]

    @Test(arguments: usageCases)
    func usageErrorsAreExit64(_ arguments: [String], _ message: String) throws {
        let home = try TemporaryDirectory()
        let result = try metrika(arguments, environment: metrikaEnvironment(api: nil, home: home.path))
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aWeeklyChartJoinsItsPoints() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(["chart", "--counter", "1001", "--from", "90daysAgo", "--to", "yesterday", "--group", "week", "--output", "-"],
                                 environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        let paths = result.stdout.split(separator: "\n").filter { $0.hasPrefix("<path d=\"M") }
        #expect(paths.count == 1, "weekly points a week apart are one line, not dots")
        #expect(result.stdout.contains(", weekly</text>"))
    }
}
