import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// The obviously-right CSV sink the byte-level one is held to: Strings built field by field, escaped
/// by scanning Unicode scalars, joined with commas. Slow, short, and easy to check against RFC 4180
/// and OWASP by reading it. Any faster output path must give the same bytes.
final class ReferenceCSVSink: ReportSink {
    var text = ""
    let lineEnding: String
    let defuse: Bool
    private var layout: ReportLayout?
    private var counter: Counter?

    init(writer: CSVWriter) {
        lineEnding = writer.lineEnding == .crlf ? "\r\n" : "\n"
        defuse = writer.formulas == .defuse
    }

    func field(_ value: String, isText: Bool) -> String {
        var value = value
        if isText, defuse, let first = value.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            value = "'" + value
        }
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else {
            return value
        }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func record(_ fields: [String], numbersFrom: Int) {
        if fields.count == 1, fields[0].isEmpty {
            text += "\"\"" + lineEnding
            return
        }
        text += fields.enumerated().map { field($1, isText: $0 < numbersFrom) }.joined(separator: ",") + lineEnding
    }

    func begin(_ layout: ReportLayout) {
        self.layout = layout
        let header = layout.keyColumns + layout.metrics.map(\.columnName)
        record(header, numbersFrom: header.count)
    }

    func beginSection(counter: Counter, sampling: Sampling?) { self.counter = counter }

    func append(_ rows: [Report.Row]) {
        guard let layout, let counter else { return }
        for row in rows {
            let keys = layout.keyCells(row, counter: counter)
            record(keys + row.values.map(layout.csvText), numbersFrom: keys.count)
        }
    }

    func endSection(totals: [Quantity], missingDays: [Day]) {}
    func end() {}
}

/// The differential tests of the output path: the byte-level sinks against the reference on the
/// golden fixtures and on 10,000 random rows, in every CSV variant. (JSON and table goldens, recorded
/// before the sinks moved onto `OutputWriter`, are their byte oracle.)
@Suite("Output path: byte-identical to the reference")
struct OutputDifferentialTests {
    static let variants: [CSVWriter] = [
        CSVWriter(), CSVWriter(lineEnding: .crlf), CSVWriter(formulas: .keep),
        CSVWriter(lineEnding: .crlf, formulas: .keep)
    ]

    static func reference(_ fixture: ReportFixtures.Fixture, writer: CSVWriter) -> String {
        let sink = ReferenceCSVSink(writer: writer)
        try! ReportFixtures.feed(fixture, to: sink)
        return sink.text
    }

    @Test func goldenFixturesMatchTheReference() {
        let fixtures = [
            ReportFixtures.daily(), ReportFixtures.daily(raw: true), ReportFixtures.sources(),
            ReportFixtures.twoCounters(), ReportFixtures.twoCounters(raw: true), ReportFixtures.empty()
        ]
        for fixture in fixtures {
            for writer in Self.variants {
                #expect(ReportFixtures.csv(fixture, writer: writer) == Self.reference(fixture, writer: writer))
            }
        }
    }

    /// The sinks before the `OutputWriter` wrote CRLF and kept formulas: asked for that, the new
    /// path reproduces their goldens byte for byte (those without durations, whose format changed
    /// on purpose, and without line breaks inside a field).
    @Test func theCRLFKeepVariantGivesThePreviousSinksBytes() throws {
        let previous = CSVWriter(lineEnding: .crlf, formulas: .keep)
        for (fixture, name) in [
            (ReportFixtures.daily(raw: true), "daily_raw.csv"), (ReportFixtures.twoCounters(), "two_counters.csv"),
            (ReportFixtures.empty(), "empty.csv")
        ] {
            let golden = try String(
                contentsOf: ReportFixtures.testsDirectory.appendingPathComponent("Golden/report/\(name)"),
                encoding: .utf8)
            #expect(
                ReportFixtures.csv(fixture, writer: previous) == golden.replacingOccurrences(of: "\n", with: "\r\n"),
                "\(name)")
        }
    }

    /// Names with quotes, commas, CR/LF, formula starts, Cyrillic, emoji, combining marks; nulls;
    /// huge, tiny and negative numbers; several counters; raw and normalized values.
    static func randomFixture(seed: UInt64, rows count: Int, raw: Bool) -> ReportFixtures.Fixture {
        var random = SeededRandom(seed: seed)
        let pieces = [
            "a", "Ромашка", "😀", "👨‍👩‍👧", "e\u{301}", ",", "\"", "\r", "\n", "\r\n", "=", "+", "-", "@", "\t", " ",
            "東京", "'", ";", "0", "9", "\u{202E}", "\u{1B}[31m", "\u{0}", "\u{FEFF}"
        ]
        func name() -> String? {
            if random.next() % 10 == 0 { return nil }
            return (0..<Int(random.next() % 8)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        func number(_ unit: MetricUnit) -> Double? {
            switch random.next() % 8 {
            case 0: return nil
            case 1: return Double(random.next() % 1_000_000_000_000) * 1e290
            case 2: return Double(random.next() % 1000) * 1e-300
            case 3: return -Double(random.next() % 100_000) / 7
            case 4: return 0
            default: return Double(random.next() % 10_000_000) / (unit == .count ? 1 : 1000)
            }
        }
        let dimensions = [Dimension.named("searchPhrase")!, Dimension.named("trafficSource")!]
        let metrics = [Metric.visits, Metric.bounceRate, Metric.avgVisitDuration, Metric.pageDepth]
        let layout = ReportLayout(
            dimensions: dimensions, metrics: metrics, period: ReportFixtures.range("2026-11-01", "2026-11-29"),
            grouping: nil, multipleCounters: true, raw: raw)
        let rows = (0..<count).map { _ in
            Report.Row(
                dimensions: dimensions.map { _ in DimensionValue(name: name()) },
                values: metrics.map { Quantity(number($0.unit), unit: $0.unit) })
        }
        let half = count / 2
        return ReportFixtures.Fixture(
            layout: layout,
            sections: [
                .init(counter: ReportFixtures.shop, rows: Array(rows[..<half]), totals: []),
                .init(counter: ReportFixtures.hostile, rows: Array(rows[half...]), totals: [])
            ])
    }

    @Test(arguments: [false, true])
    func tenThousandRandomRowsMatchTheReference(raw: Bool) {
        let fixture = Self.randomFixture(seed: raw ? 15 : 10, rows: 10_000, raw: raw)
        for writer in Self.variants {
            let fast = ReportFixtures.csv(fixture, writer: writer)
            let slow = Self.reference(fixture, writer: writer)
            #expect(fast == slow)
            if fast != slow {
                let first =
                    zip(fast.utf8, slow.utf8).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(fast.utf8.count, slow.utf8.count)
                Issue.record(
                    "first difference at byte \(first): \(Array(fast.utf8.dropFirst(max(0, first - 20)).prefix(40)))")
            }
        }
    }
}
