import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem

/// The byte-level number formatting (`ValueBytes`) and the sinks built on it, held to the String path
/// they replace: `DecimalText` and `ValueFormatter` for values, `JSONValue` for JSON rows, the
/// String-building `ReferenceCSVSink` (OutputDifferentialTests.swift) for CSV. Byte-identical, or
/// the fast path must decline (nil) and leave the value to the slow one.
@Suite("Fast output path: byte-identical to the String path")
struct FastOutputDifferentialTests {
    // MARK: - Values

    /// Doubles that stress the fast path: ties at 0–3 fraction digits and their neighbours, x.xx5
    /// values, negative zero, whole numbers around 2^50 and 2^53, huge, tiny and subnormal values,
    /// random bit patterns, and API-like values (counts, thousandths).
    static func hardDoubles(count: Int, seed: UInt64) -> [Double] {
        var random = SeededRandom(seed: seed)
        var values: [Double] = [
            0, -0.0, 0.5, -0.5, 1.5, 2.5, 0.05, 0.005, 0.0005, 2.385, 2.375, 59.5, 3599.5, 17.75, 17.25,
            0x1p50, 0x1p50 - 1, 0x1p50 + 1, 0x1p53, 0x1p53 - 1, 0x1p53 + 2, 1e15, 1e16, 1e21, 1e300, -1e300,
            .leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300, -1e-7, 0.1 + 0.2, 1.005, 1.015, 1.025,
            86399.5, 86400, 3600, 3599.4999999999995, 4.35, 4.45, -4.45, 1234567.125, 999999.995
        ]
        while values.count < count {
            let d = Double([1, 10, 100, 1000, 10000][Int(random.next() % 5)])
            let n = Double(random.next() % 100_000_000)
            switch random.next() % 7 {
            case 0:
                // A tie at some digit and the doubles next to it.
                let tie = (n + 0.5) / d
                values += [tie, tie.nextUp, tie.nextDown, -tie]
            case 1:
                let bits = random.next()
                let value = Double(bitPattern: bits)
                if value.isFinite { values.append(value) }
            case 2: values.append(n)
            case 3: values.append(n / d)
            case 4: values.append(-n / d)
            case 5: values.append(Double(random.next() % (1 << 53)) * [1, 0.5, 0.25, 0.125][Int(random.next() % 4)])
            default: values.append(n / 7)
            }
        }
        return values
    }

    static func fast(_ format: (UnsafeMutablePointer<UInt8>) -> Int?) -> String? {
        var declined = false
        let text = String(unsafeUninitializedCapacity: ValueBytes.scratchSize) { buffer in
            guard let count = format(buffer.baseAddress!) else {
                declined = true
                return 0
            }
            return count
        }
        return declined ? nil : text
    }

    @Test func fixedDecimalsMatchDecimalText() {
        for value in Self.hardDoubles(count: 100_000, seed: 0xFA57_0001) {
            for digits in 0...3 {
                guard let text = Self.fast({ ValueBytes.fixed(value, fractionDigits: digits, into: $0) }) else {
                    continue
                }
                let expected = DecimalText.format(value, fractionDigits: digits)
                #expect(text == expected, "\(value) with \(digits) digits")
                if text != expected { return }
                #expect(
                    Self.fast({ ValueBytes.fixed(value, fractionDigits: digits, grouping: true, into: $0) })
                        == DigitGroups.group(expected))
            }
        }
    }

    /// The fast path must carry API-like values (counts, thousandths, their averages), or it is not
    /// a fast path: it declines only beyond 2^40.
    @Test func theFastPathAnswersAPILikeValues() {
        var random = SeededRandom(seed: 0xFA57_0008)
        var declined = 0
        for _ in 0..<100_000 {
            let value = Double(random.next() % 100_000_000) / [1, 1000, 7][Int(random.next() % 3)]
            if Self.fast({ ValueBytes.fixed(value, fractionDigits: Int(random.next() % 3), into: $0) }) == nil {
                declined += 1
            }
        }
        #expect(declined == 0, "declined \(declined) of 100,000")
    }

    @Test func durationsAndShortestMatchValueFormatter() {
        for value in Self.hardDoubles(count: 100_000, seed: 0xFA57_0002) {
            for alwaysHours in [false, true] {
                if let text = Self.fast({ ValueBytes.duration(value, alwaysHours: alwaysHours, into: $0) }) {
                    #expect(text == ValueFormatter.duration(value, alwaysHours: alwaysHours), "\(value)")
                }
            }
            if let text = Self.fast({ ValueBytes.shortest(value, into: $0) }) {
                #expect(text == DecimalText.shortest(value), "\(value)")
            }
        }
    }

    @Test func everyUnitMatchesValueFormatterInTablesAndCSV() {
        let units: [MetricUnit] = [.count, .percent, .seconds, .pagesPerVisit, .number]
        let values: [Double?] = Self.hardDoubles(count: 20_000, seed: 0xFA57_0003) + [nil, .infinity, -.infinity, .nan]
        for value in values {
            for unit in units {
                let quantity = Quantity(value, unit: unit)
                let table = ValueBytes.text({ ValueFormatter.format(quantity, grouping: true, missing: "") }) {
                    ValueBytes.normalized(quantity, grouping: true, alwaysHours: false, into: $0)
                }
                #expect(
                    table == ValueFormatter.format(quantity, grouping: true, missing: ""),
                    "\(String(describing: value)) \(unit)")
                for raw in [false, true] {
                    let layout = ReportLayout(
                        dimensions: [], metrics: [], period: ReportFixtures.range("2026-11-01", "2026-11-01"),
                        grouping: nil, multipleCounters: false, raw: raw)
                    let out = OutputWriter()
                    try? layout.writeCSVValue(quantity, to: out)
                    #expect(out.text == layout.csvText(quantity), "\(String(describing: value)) \(unit) raw \(raw)")
                }
            }
        }
    }

    // MARK: - Sinks

    /// 10,000 rows whose numbers sit on rounding edges (and names that break every format) through
    /// the CSV sink, against the String-building reference, in every CSV variant.
    @Test(arguments: [(false, true), (true, true), (false, false)])
    func csvOfTenThousandEdgeRowsMatchesTheReference(raw: Bool, multipleCounters: Bool) {
        var fixture = Self.edgeFixture(seed: raw ? 0xFA57_0005 : 0xFA57_0004, rows: 10_000, raw: raw)
        fixture.layout.multipleCounters = multipleCounters
        for writer in OutputDifferentialTests.variants {
            let fast = ReportFixtures.csv(fixture, writer: writer)
            let slow = OutputDifferentialTests.reference(fixture, writer: writer)
            // The first differing line, not two 10,000-row documents.
            let difference = zip(fast.split(separator: "\n"), slow.split(separator: "\n")).first { $0.0 != $0.1 }
            #expect(difference == nil, "\(String(describing: difference))")
            #expect(fast.utf8.count == slow.utf8.count)
        }
    }

    /// Records of one field (an empty one is `""`) and rows whose dimension count differs from the
    /// layout's, with and without metrics and a counter column.
    @Test func oddShapedRowsMatchTheReference() {
        let names: [[DimensionValue]] = [
            [], [.init(name: nil)], [.init(name: "")], [.init(name: "=a")], [.init(name: ""), .init(name: "")],
            [.init(name: "x"), .init(name: nil), .init(name: "y,z")]
        ]
        for dimensionCount in 0...2 {
            for metrics in [[], [Metric.visits]] {
                for multipleCounters in [false, true] {
                    let dimensions = Array(
                        [Dimension.named("searchPhrase")!, Dimension.named("trafficSource")!].prefix(dimensionCount))
                    let layout = ReportLayout(
                        dimensions: dimensions, metrics: metrics,
                        period: ReportFixtures.range("2026-11-01", "2026-11-29"),
                        grouping: nil, multipleCounters: multipleCounters, raw: false)
                    let rows = names.flatMap { dims in
                        [
                            Report.Row(dimensions: dims, values: metrics.map { _ in Quantity(nil, unit: .count) }),
                            Report.Row(dimensions: dims, values: metrics.map { _ in Quantity(12.5, unit: .count) })
                        ]
                    }
                    let fixture = ReportFixtures.Fixture(
                        layout: layout, sections: [.init(counter: ReportFixtures.shop, rows: rows, totals: [])])
                    for writer in OutputDifferentialTests.variants {
                        #expect(
                            ReportFixtures.csv(fixture, writer: writer)
                                == OutputDifferentialTests.reference(fixture, writer: writer),
                            "\(dimensionCount) dimensions, \(metrics.count) metrics, several counters: \(multipleCounters)"
                        )
                    }
                }
            }
        }
    }

    /// The JSON sink's rows against `JSONValue.object(…).serialized()` (how the sink wrote them
    /// before): random and golden rows, time series and dimension reports, one and several counters.
    @Test func jsonRowsMatchJSONValue() throws {
        var fixtures = [Self.edgeFixture(seed: 0xFA57_0006, rows: 10_000, raw: false)]
        fixtures += [
            ReportFixtures.daily(), ReportFixtures.sources(), ReportFixtures.twoCounters(), ReportFixtures.empty()
        ]
        var weekly = ReportFixtures.daily()
        weekly.layout.grouping = .week
        fixtures.append(weekly)
        for fixture in fixtures {
            for section in fixture.sections {
                for row in section.rows {
                    let out = OutputWriter()
                    try ReportJSONSink(output: out).writeRow(row, layout: fixture.layout, counter: section.counter)
                    let expected = Self.referenceRow(row, layout: fixture.layout, counter: section.counter)
                    #expect(out.text == expected)
                    // The row as a value (get_report's document) is the same row.
                    #expect(
                        ReportJSONSink.row(row, layout: fixture.layout, counter: section.counter).serialized()
                            == expected)
                    if out.text != expected { return }
                }
            }
        }
    }

    /// Names with every character class JSON escapes — or might: C0, DEL, C1, bidi controls, line
    /// separators, quotes, backslashes — and the lead bytes the fast path lets through (Cyrillic, CJK,
    /// emoji, Latin-1).
    @Test func jsonStringsWithEveryEscapeMatchJSONValue() throws {
        var random = SeededRandom(seed: 0xFA57_0007)
        let scalars: [Unicode.Scalar] = [
            "a", "\"", "\\", "/", "\u{0}", "\u{1F}", "\u{7F}", "\u{80}", "\u{85}", "\u{9B}", "\u{9F}", "\u{A0}",
            "é", "Ж", "\u{061C}", "\u{0600}", "\u{200D}", "\u{200E}", "\u{200F}", "\u{2028}", "\u{2029}",
            "\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}", "\u{2070}", "東", "😀", "\u{FEFF}", "\u{10FFFF}"
        ]
        let layout = ReportLayout(
            dimensions: [Dimension.named("searchPhrase")!], metrics: [Metric.visits],
            period: ReportFixtures.range("2026-11-01", "2026-11-29"), grouping: nil, multipleCounters: false, raw: false
        )
        for _ in 0..<10_000 {
            var name = ""
            for _ in 0..<Int(random.next() % 6) {
                name.unicodeScalars.append(scalars[Int(random.next() % UInt64(scalars.count))])
            }
            let row = Report.Row(
                dimensions: [DimensionValue(name: name, id: random.next() % 3 == 0 ? name : nil)],
                values: [Quantity(Double(random.next() % 1000), unit: .count)])
            let out = OutputWriter()
            try ReportJSONSink(output: out).writeRow(row, layout: layout, counter: ReportFixtures.shop)
            #expect(
                out.text == Self.referenceRow(row, layout: layout, counter: ReportFixtures.shop),
                "\(Array(name.unicodeScalars))")
        }
    }

    // MARK: - Names from the wire

    /// Pages as the API sends them, with names in raw bytes — quotes, commas, CR/LF and tab escapes,
    /// formula starts, Cyrillic, CJK, emoji, `\\uXXXX` escapes, pairs and lone surrogates, invalid
    /// UTF-8 — read by the scanner (names kept as bytes) and by `JSONDecoder` (names as Strings,
    /// the oracle), then through the CSV sink (against the String-building reference), the JSON
    /// sink (against `JSONValue`) and the table (bytes path against String path): byte for byte.
    /// `OutputWriter.bytes`, not `.text`: a String would repair invalid bytes and hide them.
    @Test func namesFromTheWireGiveTheStringPathsBytes() throws {
        var random = SeededRandom(seed: 0xFA57_0009)
        let pieces: [[UInt8]] = [
            Array("phrase".utf8), Array("купить слона".utf8), Array("東京".utf8), Array("😀".utf8), Array("👨‍👩‍👧".utf8),
            Array("e\u{301}".utf8), Array(",".utf8), Array(" ".utf8), Array("=SUM(A1)".utf8), Array("-".utf8),
            Array("+".utf8),
            Array("@".utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\n"#.utf8), Array(#"\r"#.utf8),
            Array(#"\r\n"#.utf8),
            Array(#"\t"#.utf8), Array(#"\u0416"#.utf8), Array(#"\u001b[31m"#.utf8), Array(#"\u202e"#.utf8),
            Array(#"\u0085"#.utf8),
            Array(#"\ud83d\ude00"#.utf8), Array(#"\ud83d"#.utf8), Array(#"\ude00"#.utf8), [0xFF], [0xC3], [0xC0, 0xAF],
            [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xC2, 0x85], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0xAE],
            [0xD8, 0x9C]
        ]
        let dimensions = [Dimension.named("searchPhrase")!, Dimension.named("trafficSource")!]
        let metrics = [Metric.visits, Metric.bounceRate]
        for pageNumber in 0..<16 {
            var body = Array(#"{"data":["#.utf8)
            for row in 0..<200 {
                if row > 0 { body.append(UInt8(ascii: ",")) }
                body += Array(#"{"dimensions":["#.utf8)
                for index in dimensions.indices {
                    if index > 0 { body.append(UInt8(ascii: ",")) }
                    if random.next() % 12 == 0 {
                        body += Array(#"{"name":null}"#.utf8)
                        continue
                    }
                    body += Array(#"{"name":""#.utf8)
                    for _ in 0..<Int(random.next() % 5) { body += pieces[Int(random.next() % UInt64(pieces.count))] }
                    body += Array(random.next() % 2 == 0 ? #"","id":"x"}"#.utf8 : #""}"#.utf8)
                }
                body += Array(#"],"metrics":[\#(random.next() % 1000),\#(random.next() % 100).5]}"#.utf8)
            }
            body += Array(#"],"total_rows":200}"#.utf8)
            let data = Data(body)
            let fast = try #require(try StatDataScanner.scan(data))
            let slow = try JSONDecoder().decode(
                StatDataPage.self, from: JSONPreflight.prepare(MetrikaClient.repairingInvalidUTF8(data)))
            // The oracle's rows hold their names as Strings, as every row did before.
            func rows(_ page: StatDataPage, strings: Bool) -> [Report.Row] {
                page.rows.map { row in
                    Report.Row(
                        dimensions: row.dimensions.map { strings ? DimensionValue(name: $0.name, id: $0.id) : $0 },
                        values: Normalizer.quantities(row.metrics, of: metrics))
                }
            }
            for multipleCounters in [false, true] {
                let layout = ReportLayout(
                    dimensions: dimensions, metrics: metrics, period: ReportFixtures.range("2026-11-01", "2026-11-29"),
                    grouping: nil, multipleCounters: multipleCounters, raw: pageNumber % 2 == 1)
                let fastFixture = ReportFixtures.Fixture(
                    layout: layout,
                    sections: [.init(counter: ReportFixtures.shop, rows: rows(fast, strings: false), totals: [])])
                let slowFixture = ReportFixtures.Fixture(
                    layout: layout,
                    sections: [.init(counter: ReportFixtures.shop, rows: rows(slow, strings: true), totals: [])])
                for writer in OutputDifferentialTests.variants {
                    let out = OutputWriter()
                    try ReportFixtures.feed(fastFixture, to: ReportCSVSink(output: out, writer: writer))
                    #expect(
                        out.bytes == Array(OutputDifferentialTests.reference(slowFixture, writer: writer).utf8),
                        "page \(pageNumber)")
                }
                for (fastRow, slowRow) in zip(fastFixture.sections[0].rows, slowFixture.sections[0].rows) {
                    let out = OutputWriter()
                    try ReportJSONSink(output: out).writeRow(fastRow, layout: layout, counter: ReportFixtures.shop)
                    #expect(
                        out.bytes
                            == Array(Self.referenceRow(slowRow, layout: layout, counter: ReportFixtures.shop).utf8))
                }
                let table = OutputWriter()
                try ReportFixtures.feed(fastFixture, to: ReportTableSink(output: table, maxWidth: nil))
                let reference = OutputWriter()
                try ReportFixtures.feed(slowFixture, to: ReportTableSink(output: reference, maxWidth: nil))
                #expect(table.bytes == reference.bytes)
            }
        }
    }

    // MARK: - Helpers

    /// How `ReportJSONSink` built a row before it wrote bytes: a `JSONValue` object, serialized.
    static func referenceRow(_ row: Report.Row, layout: ReportLayout, counter: Counter) -> String {
        var members: [(String, JSONValue)] = []
        if layout.multipleCounters { members.append(("counter_id", .number(Double(counter.id)))) }
        if layout.grouping != nil {
            members.append(("date", .string(row.period?.from.iso ?? row.dimensions.first?.name)))
            if layout.grouping != .day { members.append(("date_end", .string(row.period?.to.iso))) }
        } else {
            for (index, dimension) in layout.dimensions.enumerated() {
                let value = index < row.dimensions.count ? row.dimensions[index] : DimensionValue(name: nil)
                members.append((dimension.columnName, .string(value.name)))
                if let id = value.id { members.append((dimension.columnName + "_id", .string(id))) }
            }
        }
        for (metric, quantity) in zip(layout.metrics, row.values) {
            members.append((metric.columnName, .number(quantity.value)))
        }
        if layout.grouping != nil { members.append(("incomplete", .bool(row.isIncomplete))) }
        return JSONValue.object(members).serialized()
    }

    /// The random fixture of OutputDifferentialTests with every metric value drawn from `hardDoubles`
    /// (and a tenth of them missing), over all five units.
    static func edgeFixture(seed: UInt64, rows count: Int, raw: Bool) -> ReportFixtures.Fixture {
        var fixture = OutputDifferentialTests.randomFixture(seed: seed, rows: count, raw: raw)
        let metrics = [Metric.visits, Metric.bounceRate, Metric.avgVisitDuration, Metric.pageDepth]
        let units = metrics.map(\.unit) + [.number]
        fixture.layout.metrics = metrics + [Metric.visits]
        let doubles = hardDoubles(count: count * units.count, seed: seed)
        var random = SeededRandom(seed: seed ^ 0xFFFF)
        var next = 0
        for section in fixture.sections.indices {
            for row in fixture.sections[section].rows.indices {
                // Rows with fewer or more dimension values than the layout has (a lying server).
                switch random.next() % 20 {
                case 0: fixture.sections[section].rows[row].dimensions = []
                case 1: fixture.sections[section].rows[row].dimensions.removeLast()
                case 2: fixture.sections[section].rows[row].dimensions.append(DimensionValue(name: "extra,\"cell\""))
                default: break
                }
                fixture.sections[section].rows[row].values = units.map { unit in
                    defer { next += 1 }
                    return Quantity(random.next() % 10 == 0 ? nil : doubles[next % doubles.count], unit: unit)
                }
            }
        }
        return fixture
    }
}
