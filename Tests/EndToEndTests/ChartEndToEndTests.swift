import Foundation
import MetrikaAPI
import MetrikaRender
import MetrikaTestSupport
import Testing

/// `metrika chart` run as a user runs it: the built binary against the simulator over loopback, its
/// SVG checked by Python's XML parser.
@Suite(.serialized, .blockingLanes) struct ChartEndToEndTests {
    static let scripts = Binaries.repositoryRoot.appendingPathComponent("Tests/MetrikaRenderTests/scripts")

    struct SVGReport: Decodable {
        let ok: Bool
        let problems: [String]
        let texts: [String]?
        let viewBox: String?
        let elements: [String: Int]?
    }

    static func checkSVG(atPath path: String) throws -> SVGReport {
        try ToolCheck.require("python3", package: "python3")
        let result = try runProcess(
            "/usr/bin/env", ["python3", scripts.appendingPathComponent("check_svg.py").path, path],
            environment: ProcessInfo.processInfo.environment)
        try #require(result.status == 0, "check_svg.py: \(result.stderr) \(result.stdout)")
        return try JSONDecoder().decode(SVGReport.self, from: Data(result.stdout.utf8))
    }

    @Test func drawsTwoCountersIntoAFileThatParsesAndKeepsHostileNamesInert() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let output = home.path + "/out/chart.svg"
        try FileManager.default.createDirectory(atPath: home.path + "/out", withIntermediateDirectories: true)
        let result = try metrika(
            [
                "chart", "--counter", "1001,1002", "--metrics", "visits,bounceRate", "--from", "13daysAgo", "--output",
                output
            ],
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
        let result = try metrika(
            ["chart", "--counter", "1001", "--width", "640", "--height", "300", "--output", "-"],
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
        let result = try metrika(
            ["chart", "--counter", "1001", "--output", output],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 73)
        #expect(result.stderr.contains("Error: cannot write \(output): No such file or directory"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aWeeklyChartJoinsItsPoints() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(
            [
                "chart", "--counter", "1001", "--from", "90daysAgo", "--to", "yesterday", "--group", "week", "--output",
                "-"
            ],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        let paths = result.stdout.split(separator: "\n").filter { $0.hasPrefix("<path d=\"M") }
        #expect(paths.count == 1, "weekly points a week apart are one line, not dots")
        #expect(result.stdout.contains(", weekly</text>"))
    }

    /// A Wednesday three to four weeks before the pinned clock (UTC; a day off either way is still mid-week).
    static func aWednesdayWeeksAgo() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var day = calendar.date(byAdding: .day, value: -21, to: TestClock.date)!
        while calendar.component(.weekday, from: day) != 4 { day = calendar.date(byAdding: .day, value: -1, to: day)! }
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    @Test func aWeeklyChartLeavesOutTheCutFirstWeekAndMarksThisWeekSoFar() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let from = Self.aWednesdayWeeksAgo()
        let result = try metrika(
            ["chart", "--counter", "1001", "--from", from, "--group", "week", "--output", "-"],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        // The first week starts on a Wednesday: 5 days of 7 would read as a drop, so it is left out, with a note.
        #expect(
            result.stderr.contains("Note: counter 1001: Left out: the partial week of \(from) (5 of 7 days)."),
            "\(result.stderr)")
        #expect(result.stdout.contains(">Left out: the partial week of \(from) (5 of 7 days).</text>"))
        // The current week is not over: dotted, hollow, and said so in the legend and on its value.
        #expect(result.stdout.contains(">this week so far</text>"))
        #expect(!result.stdout.contains("today (incomplete)"))
        #expect(result.stdout.contains(" so far</text>"))
    }

    @Test func countersTenTimesApartAreDrawnAsSmallMultiples() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        // In the simulator 1004 (a big portal) has ~160× the visits of 1001.
        let result = try metrika(
            ["chart", "--counter", "1001,1004", "--from", "13daysAgo", "--output", "-"],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        let file = home.path + "/chart.svg"
        try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let report = try Self.checkSVG(atPath: file)
        #expect(report.ok, "\(report.problems)")
        #expect(report.viewBox == "0 0 800 560", "two panels, one per counter, each with its own axis")
        #expect(report.texts?.contains { $0.hasPrefix("Visits · ") } == true, "\(report.texts ?? [])")
    }

    // MARK: - PNG

    static var hasRSVGConvert: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert") }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            bytes[12..<16].elementsEqual(Array("IHDR".utf8))
        else { return nil }
        func number(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    @Test(.enabled(if: hasRSVGConvert, "needs rsvg-convert (apt-get install librsvg2-bin); .ci/run installs it"))
    func aPNGFileNameGivesARealPNGAtTwiceTheSize() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: home.path + "/out", withIntermediateDirectories: true)
        let output = home.path + "/out/visits.png"
        let result = try metrika(
            ["chart", "--counter", "1001,1002", "--from", "13daysAgo", "--output", output],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        let png = try Data(contentsOf: URL(fileURLWithPath: output))
        let size = try #require(Self.pngSize(png), "not a PNG: \(png.prefix(16).map { String($0, radix: 16) })")
        #expect(size.width == 1600 && size.height == 800, "\(size)")
        #expect(png.count > 20_000, "a drawn chart, not an empty image: \(png.count) bytes")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: home.path + "/out") == ["visits.png"],
            "atomic write leaves nothing else")

        // --format png to standard output: the same kind of bytes, at the asked size.
        let piped = try metrika(
            ["chart", "--counter", "1001", "--format", "png", "--width", "640", "--height", "300", "--output", "-"],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(
            piped.stdout.contains("IHDR") && piped.stdout.hasSuffix("IEND\u{FFFD}B`\u{FFFD}"), "PNG bytes on stdout")
    }

    @Test func withoutTheRasterizerAPNGIsExit69WithTheInstallCommandAndNoFile() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let output = home.path + "/visits.png"
        let result = try metrika(
            ["chart", "--counter", "1001", "--output", output],
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["PATH": home.path]))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("Error: cannot draw PNG: rsvg-convert is not installed"), "\(result.stderr)")
        #expect(result.stderr.contains("apt-get install librsvg2-bin"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
