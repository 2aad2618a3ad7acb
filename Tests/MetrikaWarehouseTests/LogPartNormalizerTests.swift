import Foundation
import MetrikaModel
import Testing

@testable import MetrikaWarehouse

/// Log parts as the Logs API really sends them (each shape with the public report it comes from, see
/// docs/clickhouse.md), turned into the TabSeparated rows ClickHouse reads as the API meant them;
/// rows that cannot be loaded stop the part, naming row and field, and are never skipped.
@Suite("Log part normalizer")
struct LogPartNormalizerTests {
    static let fields = ["ym:s:visitID", "ym:s:date", "ym:s:goalsOrder"]

    /// Feeds `part` in chunks of `chunk` bytes; returns what ClickHouse would get.
    func normalize(_ part: String, fields: [String] = fields, chunk: Int = 7) throws -> String {
        let normalizer = LogPartNormalizer(fields: fields)
        var out: [UInt8] = []
        let bytes = Array(part.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            try normalizer.consume(Array(bytes[start..<end])) { out += $0 }
            start = end
        }
        try normalizer.finish { out += $0 }
        return String(decoding: out, as: UTF8.self)
    }

    func problem(_ part: String, fields: [String] = fields) -> LogRowProblem? {
        do {
            _ = try normalize(part, fields: fields)
            return nil
        } catch {
            return error as? LogRowProblem
        }
    }

    @Test(arguments: [1, 3, 7, 64, 1 << 16])
    func cleanRowsPassUnchangedWithoutTheHeaderWhateverTheChunking(chunk: Int) throws {
        let rows = "1\t2026-06-01\t['a','b']\n2\t2026-06-01\t[]\n3\t2026-06-02\t['x\\'y','поиск\\ttab']\n"
        #expect(try normalize("ym:s:visitID\tym:s:date\tym:s:goalsOrder\n" + rows, chunk: chunk) == rows)
    }

    /// yndx-metrika/logs_api_integration#29 and commit 2ee459c: the header names fields, not columns;
    /// ClickHouse 20+ maps TabSeparatedWithNames headers onto columns (117, or defaults from 23.x).
    @Test func theHeaderIsCheckedAndNeverReachesClickHouse() throws {
        #expect(try normalize("ym:s:visitID\tym:s:date\tym:s:goalsOrder\n1\t2026-06-01\t[]\n") == "1\t2026-06-01\t[]\n")
        let wrong = problem("ym:s:visitID\tym:s:dateTime\tym:s:goalsOrder\n1\t2026-06-01\t[]\n")
        #expect(wrong?.row == 0)
        #expect(wrong?.message(request: 7, part: 1, of: 2).contains("part 1 of 2, the header") == true)
        // yndx-metrika/logs_api_integration#35: a part without its header is not taken for one.
        #expect(problem("1\t2026-06-01\t[]\n")?.row == 0)
        #expect(problem("")?.problem.contains("empty") == true)
    }

    /// yndx-metrika/logs_api_integration#4 (a header in another order than the request) and commits
    /// da517c7/bdd94f7, which sorted the requested fields to match it.
    @Test func aHeaderInAnotherOrderHasItsRowsReordered() throws {
        let part = "ym:s:date\tym:s:goalsOrder\tym:s:visitID\n2026-06-01\t['a']\t1\n2026-06-02\t[]\t2\n"
        #expect(try normalize(part) == "1\t2026-06-01\t['a']\n2\t2026-06-02\t[]\n")
    }

    /// yndx-metrika/logs_api_integration#33 (and #28): a string array whose element holds a double quote
    /// arrives CSV-quoted, its element quotes escaped: `"[\'Имя 1/2""\', \'B\']"`. Both ClickHouse
    /// versions refuse it ("expected [" / "Array does not start with '['").
    @Test func aCSVQuotedArrayWithEscapedQuotesLoadsAsItsElements() throws {
        let part = "ym:s:visitID\tym:s:date\tym:s:goalsOrder\n1\t2026-06-01\t\"[\\'Имя 1/2\"\"\\', \\'B\\']\"\n"
        #expect(try normalize(part) == "1\t2026-06-01\t['Имя 1/2\"', 'B']\n")
    }

    /// logs_api_integration commit bdd94f7 ("to correct escapes in params": `\'` → `'`): string arrays
    /// with escaped element quotes. The one level of escaping is undone exactly, so an element's own
    /// quote (`a'b`, sent `\\\'`) survives, which that blanket replace broke.
    @Test func escapedElementQuotesAreUndoneOnceKeepingAnElementsOwnQuote() throws {
        let part = "ym:s:visitID\tym:s:date\tym:s:goalsOrder\n1\t2026-06-01\t[\\'x\\',\\'a\\\\\\'b\\']\n"
        #expect(try normalize(part) == "1\t2026-06-01\t['x','a\\'b']\n")
    }

    /// Defensive (no public report): Windows line ends, a byte order mark, a last row without its
    /// line feed. ClickHouse refuses the first ("DOS/Windows style line separators").
    @Test func carriageReturnsAByteOrderMarkAndAMissingLastLineFeedAreHandled() throws {
        let part = "\u{FEFF}ym:s:visitID\tym:s:date\tym:s:goalsOrder\r\n1\t2026-06-01\t[]\r\n2\t2026-06-02\t['a']"
        #expect(try normalize(part) == "1\t2026-06-01\t[]\n2\t2026-06-02\t['a']\n")
    }

    /// What logs_api_integration silently filtered out (`len(x.split('\t')) == headers_num`) stops the
    /// run here, naming the row, with its raw bytes cut.
    @Test func aRowWithTheWrongFieldCountStopsThePartNamingTheRow() throws {
        let long = String(repeating: "x", count: 500)
        let part =
            "ym:s:visitID\tym:s:date\tym:s:goalsOrder\n1\t2026-06-01\t[]\n2\t2026-06-01\textra\t\(long)\n3\t2026-06-01\t[]\n"
        let found = try #require(problem(part))
        #expect(found.row == 2)
        #expect(found.raw.count == 200)
        let message = found.message(request: 7, part: 2, of: 3)
        #expect(message.contains("log request 7, part 2 of 3, row 2: 4 fields where the header names 3"))
        #expect(message.contains("'2\\t2026-06-01\\textra"))
        #expect(message.count < 500 && message.contains("…"))
    }

    /// A value ClickHouse would refuse for its column's type is reported here, as ours: part, row,
    /// field and the value, not ClickHouse's "Cannot parse input" for a part it numbers from 0.
    @Test(arguments: [
        ("ym:s:visitID", "12a", "not a whole number ≥ 0"), ("ym:s:pageViews", "-", "not a whole number"),
        ("ym:s:date", "2026-6-1", "not a date (YYYY-MM-DD)"),
        ("ym:s:dateTime", "2026-06-01T10:00:00", "not a date and time"),
        ("ym:s:goalsID", "4001", "not an array")
    ])
    func aValueItsColumnCannotTakeNamesRowAndField(field: String, value: String, expected: String) throws {
        let fields = ["ym:s:counterID", field]
        let good = [
            "ym:s:visitID": "1", "ym:s:pageViews": "-3", "ym:s:date": "2026-06-01",
            "ym:s:dateTime": "2026-06-01 10:00:00", "ym:s:goalsID": "[4001]"
        ][field]!
        let part = fields.joined(separator: "\t") + "\n1001\t\(good)\n1001\t\(value)\n"
        let found = try #require(problem(part, fields: fields))
        #expect(found.row == 2 && found.field == field && found.problem.hasPrefix(expected), "\(found)")
        #expect(String(decoding: found.raw, as: UTF8.self) == value)
        // The same rows without the bad one load, an empty number or array included.
        if field != "ym:s:date" && field != "ym:s:dateTime" {
            #expect(
                try normalize(fields.joined(separator: "\t") + "\n1001\t\(good)\n\t\n", fields: fields)
                    == "1001\t\(good)\n\t\(field == "ym:s:goalsID" ? "[]" : "")\n")
        }
    }

    @Test func aValueThatIsNotAnArrayNamesItsField() throws {
        let found = try #require(
            problem("ym:s:visitID\tym:s:date\tym:s:goalsOrder\n1\t2026-06-01\t[]\n2\t2026-06-01\t\"[\\'a\\']\n"))
        #expect(found.row == 2)
        #expect(found.field == "ym:s:goalsOrder")
        #expect(problem("ym:s:visitID\tym:s:date\tym:s:goalsOrder\n1\t2026-06-01\tnope\n")?.field == "ym:s:goalsOrder")
    }
}
