import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem

/// Hand-built reports that exercise every rendering rule at once: nulls, today's incomplete row,
/// rounding edges (2.385, 59.5 s, 3599.5 s, 17.75 %), thousands, Cyrillic, CJK, hostile names, a
/// search phrase with a comma, a quote and a newline, sampling, two counters, `--raw`.
enum ReportFixtures {
    /// One counter's part, as the command would feed it to a sink.
    struct Section {
        var counter: Counter
        var sampling: Sampling?
        var rows: [Report.Row]
        var totals: [Quantity]
        var missingDays: [Day] = []
        /// Metrics missing on days that have the others (an offline report of a metric never synced).
        var missingMetrics: [(metric: Metric, days: [Day])] = []
        /// The previous period of a `--compare` report.
        var previous: Report.Previous?
    }

    /// A whole report: its layout and sections.
    struct Fixture {
        var layout: ReportLayout
        var sections: [Section]
    }

    static let shop = Counter(id: 1001, name: "Интернет-магазин «Ромашка»", site: "romashka-shop.ru")
    static let hostile = Counter(
        id: 1002, name: "<script>alert(\"x\")</script> & Co", site: "xss-and-co.example.com",
        timeZoneName: "Asia/Yekaterinburg", timeZoneOffsetMinutes: 300)

    static func day(_ iso: String) -> Day { Day(iso: iso)! }
    static func range(_ from: String, _ to: String) -> DateRange { DateRange(from: day(from), to: day(to))! }

    /// Values in `metrics` order with their units.
    static func values(_ numbers: [Double?], _ metrics: [Metric]) -> [Quantity] {
        zip(numbers, metrics).map { Quantity($0, unit: $1.unit) }
    }

    static func dailyRow(_ iso: String, _ numbers: [Double?], incomplete: Bool = false) -> Report.Row {
        Report.Row(
            dimensions: [DimensionValue(name: iso)], values: values(numbers, Metric.everyday),
            isIncomplete: incomplete, period: range(iso, iso))
    }

    // MARK: - The fixtures

    /// The default report: six everyday metrics by day, 2026-11-23 … 2026-11-29 (today).
    static func daily(raw: Bool = false) -> Fixture {
        let metrics = Metric.everyday
        let layout = ReportLayout(
            dimensions: [], metrics: metrics, period: range("2026-11-23", "2026-11-29"), grouping: .day,
            multipleCounters: false, raw: raw,
            query: [
                ("counters", .array([.number(1001)])), ("from", .string("6daysAgo")), ("to", .string("today")),
                ("metrics", .array(metrics.map { .string($0.apiName) })), ("dimensions", .array([])),
                ("accuracy", .string("full")), ("group", .string("day"))
            ])
        // pageviews, visits, users, page depth, duration (s), bounce rate (%)
        let rows = [
            dailyRow("2026-11-23", [29518, 12345, 11020, 2.385, 182.664, 17.7786]),
            dailyRow("2026-11-24", [31002, 13001, 11800, 2.3846, 59.5, 17.75]),
            dailyRow("2026-11-25", [0, 0, 0, nil, nil, nil]),
            dailyRow("2026-11-26", [1_234_567, 1_000_000, 999_999, 1.234567, 3599.5, 0.05]),
            dailyRow("2026-11-27", [250_000, 99999, 88888, 2.5, 3600, 100]),
            dailyRow("2026-11-28", [1, 1, 1, 1, 0.4, 0]),
            dailyRow("2026-11-29", [512, 300, 280, 1.70666, 45.2, 33.3333], incomplete: true)
        ]
        // Sums of the counts; users from the API (less than the sum of days: people come back);
        // the ratios weighted by visits (computed by hand: 1545600 / 1125646 = 1.3730782…).
        let totals = values(
            [1_545_600, 1_125_646, 1_098_000, 1.3730782146429694, 3520.23505345375, 9.336989210639935], metrics)
        return Fixture(layout: layout, sections: [Section(counter: shop, sampling: nil, rows: rows, totals: totals)])
    }

    /// Search phrases by traffic source, sampled at 10 %: names that try to break every format.
    static func sources() -> Fixture {
        let source = Dimension.named("trafficSource")!
        let phrase = Dimension.named("searchPhrase")!
        let metrics = [Metric.visits, Metric.bounceRate, Metric.avgVisitDuration]
        let layout = ReportLayout(
            dimensions: [source, phrase], metrics: metrics, period: range("2026-11-01", "2026-11-29"), grouping: nil,
            multipleCounters: false, raw: false,
            query: [
                ("counters", .array([.number(1001)])), ("from", .string("2026-11-01")), ("to", .string("today")),
                ("metrics", .array(metrics.map { .string($0.apiName) })),
                ("dimensions", .array([.string(source.apiName), .string(phrase.apiName)])),
                ("accuracy", .string("0.1")), ("limit", .number(100)), ("lang", .string("ru"))
            ])
        func row(_ source: DimensionValue, _ phrase: String?, _ numbers: [Double?]) -> Report.Row {
            Report.Row(dimensions: [source, DimensionValue(name: phrase)], values: values(numbers, metrics))
        }
        let search = DimensionValue(name: "Переходы из поисковых систем", id: "organic")
        let rows = [
            row(search, "купить ромашку, недорого", [15200, 12.5, 75]),
            row(search, "say \"hi\"\nsecond line", [880, 50, 61.5]),
            row(
                DimensionValue(name: "<script>alert(\"x\")</script> & Co", id: "referral"),
                "\u{1B}[31mred\u{1B}[0m\tand\u{202E}evil", [7, 0, 3600.4]),
            row(DimensionValue(name: "東京ラーメン 🍜", id: "social"), "cafe\u{301} =SUM(A1)", [12345, 9.96, 59.49]),
            row(DimensionValue(name: nil, id: nil), nil, [3, nil, nil])
        ]
        let totals = values([28435, 10.65, 84.2], metrics)
        let sampling = Sampling(isSampled: true, share: 0.1, sampleSize: 2843, sampleSpace: 28435)
        return Fixture(
            layout: layout, sections: [Section(counter: shop, sampling: sampling, rows: rows, totals: totals)])
    }

    /// Search phrases of a week against the week before (`--compare` of a dimension report): a
    /// phrase that grew, one that fell, one new, one gone (its current values zero, its bounce rate
    /// unknown), users never summed; the totals are each period's own.
    static func comparedPhrases() -> Fixture {
        let phrase = Dimension.named("searchPhrase")!
        let metrics = [Metric.visits, Metric.users, Metric.bounceRate]
        var layout = ReportLayout(
            dimensions: [phrase], metrics: metrics, period: range("2026-11-23", "2026-11-29"), grouping: nil,
            multipleCounters: false, raw: false,
            query: [
                ("counters", .array([.number(1001)])), ("from", .string("2026-11-23")), ("to", .string("2026-11-29")),
                ("metrics", .array(metrics.map { .string($0.apiName) })),
                ("dimensions", .array([.string(phrase.apiName)])),
                ("accuracy", .string("full")), ("compare", .bool(true)), ("limit", .number(100))
            ], compare: true)
        layout.compare = true
        let before = range("2026-11-16", "2026-11-22")
        func row(_ name: String, _ now: [Double?], _ earlier: [Double?], _ presence: Report.Presence) -> Report.Row {
            var row = Report.Row(
                dimensions: [DimensionValue(name: name)], values: values(now, metrics),
                previous: Report.Previous(period: before, values: values(earlier, metrics)))
            row.presence = presence
            return row
        }
        let rows = [
            row("купить ромашку", [1520, 1400, 12.5], [1210, 1100, 14], .both),
            row("ромашка отзывы", [640, 600, 31.25], [655, 610, 30], .both),
            row("ромашка, \"чай\"", [212, 200, 20], [0, 0, nil], .new),
            row("ромашка доставка", [0, 0, nil], [96, 90, 25], .gone)
        ]
        let section = Section(
            counter: shop, sampling: nil, rows: rows, totals: values([2372, 2150, 18.4], metrics),
            previous: Report.Previous(period: before, values: values([1961, 1760, 19.9], metrics)))
        return Fixture(layout: layout, sections: [section])
    }

    /// Visits and users by week for two counters; the second lacks a day of history.
    static func twoCounters(raw: Bool = false) -> Fixture {
        let metrics = [Metric.visits, Metric.users, Metric.bounceRate]
        let layout = ReportLayout(
            dimensions: [], metrics: metrics, period: range("2026-11-01", "2026-11-29"), grouping: .week,
            multipleCounters: true, raw: raw,
            query: [
                ("counters", .array([.number(1001), .number(1002)])), ("from", .string("2026-11-01")),
                ("to", .string("2026-11-29")), ("metrics", .array(metrics.map { .string($0.apiName) })),
                ("dimensions", .array([])), ("accuracy", .string("full")), ("group", .string("week"))
            ])
        func week(_ from: String, _ to: String, _ numbers: [Double?], incomplete: Bool = false) -> Report.Row {
            Report.Row(
                dimensions: [DimensionValue(name: from)], values: values(numbers, metrics), isIncomplete: incomplete,
                period: range(from, to))
        }
        let first = Section(
            counter: shop, sampling: nil,
            rows: [
                week("2026-11-01", "2026-11-01", [2400, 2100, 21.25]),
                week("2026-11-02", "2026-11-08", [17500, 14000, 19.5]),
                week("2026-11-09", "2026-11-15", [17650, 14100, 18.04]),
                week("2026-11-16", "2026-11-22", [16980, 13990, 20]),
                week("2026-11-23", "2026-11-29", [15010, 12500, 22.45], incomplete: true)
            ], totals: values([69540, 48000, 20.001], metrics))
        let second = Section(
            counter: hostile, sampling: nil,
            rows: [
                week("2026-11-01", "2026-11-01", [340, 300, 30]),
                week("2026-11-02", "2026-11-08", [nil, nil, nil]),
                week("2026-11-09", "2026-11-15", [2450, 2000, 31.5]),
                week("2026-11-16", "2026-11-22", [2380, 1950, 29.95]),
                week("2026-11-23", "2026-11-29", [2100, 1800, 33.05], incomplete: true)
            ], totals: values([nil, nil, nil], metrics),
            missingDays: [day("2026-11-03"), day("2026-11-04"), day("2026-11-05"), day("2026-11-07")])
        return Fixture(layout: layout, sections: [first, second])
    }

    /// A counter with no visits in the period: no rows at all.
    static func empty() -> Fixture {
        let metrics = [Metric.visits, Metric.pageDepth]
        let layout = ReportLayout(
            dimensions: [Dimension.named("country")!], metrics: metrics, period: range("2026-11-29", "2026-11-29"),
            grouping: nil,
            multipleCounters: false, raw: false,
            query: [("counters", .array([.number(1001)])), ("from", .string("today")), ("to", .string("today"))])
        return Fixture(
            layout: layout,
            sections: [Section(counter: shop, sampling: nil, rows: [], totals: values([0, nil], metrics))])
    }

    // MARK: - Driving a sink

    /// Feeds a fixture to a sink the way the command does, rows in pages of `pageSize` to show that
    /// a page boundary never shows in the output.
    static func feed(_ fixture: Fixture, to sink: any ReportSink, pageSize: Int = 2) throws {
        try sink.begin(fixture.layout)
        for section in fixture.sections {
            try sink.beginSection(counter: section.counter, sampling: section.sampling)
            if let previous = section.previous { try sink.compareSection(previous) }
            var start = 0
            while start < section.rows.count {
                try sink.append(Array(section.rows[start..<min(section.rows.count, start + pageSize)]))
                start += pageSize
            }
            if !section.missingMetrics.isEmpty { try sink.missingMetrics(section.missingMetrics) }
            try sink.endSection(totals: section.totals, missingDays: section.missingDays)
        }
        try sink.end()
    }

    /// The bytes a sink made of a fixture, through an in-memory `OutputWriter`.
    static func render(_ fixture: Fixture, pageSize: Int = 2, _ makeSink: (OutputWriter) -> any ReportSink) -> String {
        let out = OutputWriter()
        // An in-memory writer cannot fail.
        try! feed(fixture, to: makeSink(out), pageSize: pageSize)
        return out.text
    }

    /// Where the CLI says the left-out "before" values are kept (`ReportCommand.beforeElsewhere`).
    static let cliBeforeElsewhere = "--csv and --json keep them"

    /// The table as the CLI prints it (its words for the left-out "before" values).
    static func table(_ fixture: Fixture, maxWidth: Int? = nil) -> String {
        render(fixture) { ReportTableSink(output: $0, maxWidth: maxWidth, beforeElsewhere: cliBeforeElsewhere) }
    }

    static func csv(_ fixture: Fixture, writer: CSVWriter = CSVWriter()) -> String {
        render(fixture) { ReportCSVSink(output: $0, writer: writer) }
    }

    static func json(_ fixture: Fixture, pageSize: Int = 2) -> String {
        render(fixture, pageSize: pageSize) { ReportJSONSink(output: $0) }
    }

    // MARK: - Goldens and scripts

    static var testsDirectory: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent() }

    /// Compares with `Golden/report/<name>`; `METRIKA_RECORD_GOLDEN=1` re-records it first.
    static func expectGolden(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        try Golden.expect(
            text, matches: testsDirectory.appendingPathComponent("Golden/report/\(name)"), describe: "got:\n\(text)",
            sourceLocation: sourceLocation)
    }

    /// Writes `text` to a temporary file and runs `python3 scripts/<script> <file>`; pipes are
    /// drained before waiting.
    static func python(_ script: String, on text: String) throws -> (status: Int32, stdout: Data, stderr: String) {
        try ToolCheck.require("python3", package: "python3")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("input")
        try Data(text.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", testsDirectory.appendingPathComponent("scripts/\(script)").path, file.path]
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
}

/// Every fixture in every format against its golden file. Read the goldens by eye after
/// re-recording: they are the specification of what users see.
@Suite("Report sinks: goldens", .ownThreads)
struct ReportSinkGoldenTests {
    @Test func dailyTable() throws {
        try ReportFixtures.expectGolden(ReportFixtures.table(ReportFixtures.daily()), named: "daily.txt")
    }
    @Test func dailyCSV() throws {
        try ReportFixtures.expectGolden(ReportFixtures.csv(ReportFixtures.daily()), named: "daily.csv")
    }
    @Test func dailyJSON() throws {
        try ReportFixtures.expectGolden(ReportFixtures.json(ReportFixtures.daily()), named: "daily.json")
    }
    @Test func dailyRawTable() throws {
        try ReportFixtures.expectGolden(ReportFixtures.table(ReportFixtures.daily(raw: true)), named: "daily_raw.txt")
    }
    @Test func dailyRawCSV() throws {
        try ReportFixtures.expectGolden(ReportFixtures.csv(ReportFixtures.daily(raw: true)), named: "daily_raw.csv")
    }
    @Test func sourcesTable() throws {
        try ReportFixtures.expectGolden(ReportFixtures.table(ReportFixtures.sources()), named: "sources.txt")
    }
    @Test func sourcesTableCut() throws {
        try ReportFixtures.expectGolden(
            ReportFixtures.table(ReportFixtures.sources(), maxWidth: 72), named: "sources_width72.txt")
    }
    @Test func sourcesCSV() throws {
        try ReportFixtures.expectGolden(ReportFixtures.csv(ReportFixtures.sources()), named: "sources.csv")
    }
    @Test func sourcesJSON() throws {
        try ReportFixtures.expectGolden(ReportFixtures.json(ReportFixtures.sources()), named: "sources.json")
    }
    @Test func twoCountersTable() throws {
        try ReportFixtures.expectGolden(ReportFixtures.table(ReportFixtures.twoCounters()), named: "two_counters.txt")
    }
    @Test func twoCountersCSV() throws {
        try ReportFixtures.expectGolden(ReportFixtures.csv(ReportFixtures.twoCounters()), named: "two_counters.csv")
    }
    @Test func twoCountersJSON() throws {
        try ReportFixtures.expectGolden(ReportFixtures.json(ReportFixtures.twoCounters()), named: "two_counters.json")
    }
    @Test func comparedPhrasesTable() throws {
        try ReportFixtures.expectGolden(
            ReportFixtures.table(ReportFixtures.comparedPhrases()), named: "compared_phrases.txt")
    }
    @Test func comparedPhrasesCSV() throws {
        try ReportFixtures.expectGolden(
            ReportFixtures.csv(ReportFixtures.comparedPhrases()), named: "compared_phrases.csv")
    }
    @Test func comparedPhrasesJSON() throws {
        try ReportFixtures.expectGolden(
            ReportFixtures.json(ReportFixtures.comparedPhrases()), named: "compared_phrases.json")
    }
    @Test func emptyTable() throws {
        try ReportFixtures.expectGolden(ReportFixtures.table(ReportFixtures.empty()), named: "empty.txt")
    }
    @Test func emptyCSV() throws {
        try ReportFixtures.expectGolden(ReportFixtures.csv(ReportFixtures.empty()), named: "empty.csv")
    }
    @Test func emptyJSON() throws {
        try ReportFixtures.expectGolden(ReportFixtures.json(ReportFixtures.empty()), named: "empty.json")
    }

    /// Page boundaries are invisible: one row per page and everything in one page give the same bytes.
    @Test(arguments: [1, 3, 100])
    func pagingDoesNotShow(pageSize: Int) {
        for fixture in [ReportFixtures.daily(), ReportFixtures.sources(), ReportFixtures.twoCounters()] {
            #expect(ReportFixtures.json(fixture, pageSize: pageSize) == ReportFixtures.json(fixture, pageSize: 2))
        }
    }

    /// JSON always carries the API's numbers: `--raw` changes nothing in it.
    @Test func jsonIgnoresRaw() {
        #expect(ReportFixtures.json(ReportFixtures.daily(raw: true)) == ReportFixtures.json(ReportFixtures.daily()))
        #expect(
            ReportFixtures.json(ReportFixtures.twoCounters(raw: true))
                == ReportFixtures.json(ReportFixtures.twoCounters()))
    }
}
