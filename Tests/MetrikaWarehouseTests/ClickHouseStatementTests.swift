import Foundation
import Testing
@testable import MetrikaAPI
import MetrikaModel
@testable import MetrikaWarehouse

/// The statements a log load sends ClickHouse, in order, and what a failure at each of them leaves:
/// the target table is written only by the swap at the end, so it is untouched by any earlier failure.
@Suite("ClickHouse statement sequence")
struct ClickHouseStatementTests {
    static let table = "metrika.visits"
    static let staging = "metrika.visits__staging_1001_20260601_20260602"

    /// The whole sequence for a load of parts 0 and 1 (statements shortened to their first words).
    static let sequence = [
        "CREATE DATABASE IF NOT EXISTS metrika",
        "CREATE TABLE IF NOT EXISTS metrika.visits",
        "DROP TABLE IF EXISTS \(staging)",
        "CREATE TABLE \(staging) AS metrika.visits",
        "DROP TABLE IF EXISTS \(staging)__part0",
        "CREATE TABLE \(staging)__part0 AS metrika.visits",
        "INSERT INTO \(staging)__part0 (counter_id, date, visit_id) FORMAT TabSeparated",
        "INSERT INTO \(staging) SELECT * FROM \(staging)__part0",
        "DROP TABLE IF EXISTS \(staging)__part0",
        "DROP TABLE IF EXISTS \(staging)__part1",
        "CREATE TABLE \(staging)__part1 AS metrika.visits",
        "INSERT INTO \(staging)__part1 (counter_id, date, visit_id) FORMAT TabSeparated",
        "INSERT INTO \(staging) SELECT * FROM \(staging)__part1",
        "DROP TABLE IF EXISTS \(staging)__part1",
        "DROP TABLE IF EXISTS \(staging)__swap",
        "CREATE TABLE \(staging)__swap AS metrika.visits",
        "INSERT INTO \(staging)__swap SELECT * FROM \(staging) LIMIT 1 BY counter_id, visit_id",
        "INSERT INTO \(staging)__swap SELECT * FROM metrika.visits WHERE toYYYYMM(date) IN (202606)",
        "ALTER TABLE metrika.visits REPLACE PARTITION 202606 FROM \(staging)__swap",
        "DROP TABLE IF EXISTS \(staging)__swap",
        "DROP TABLE IF EXISTS \(staging)",
    ]

    func run(clickHouse: FakeClickHouse, parts: FakePartServer, store: MemoryProgressStore? = MemoryProgressStore()) async throws {
        let sleeper = SleepRecorder(), notes = NoteRecorder()
        let settings = try ClickHouseSettings.make(url: "http://127.0.0.1:8123", table: nil, source: .visits, environment: [:], timeout: 30)
        let destination = try await ClickHouseDestination.prepare(settings, counterID: 1001, source: .visits, fields: Fixture.fields, transport: clickHouse)
        let exporter = Fixture.exporter(
            client: Fixture.client(api: FakeLogsAPI(parts: [0, 1]), parts: parts, sleeper: sleeper), destination: destination, store: store,
            notes: notes, sleeper: sleeper)
        _ = try await exporter.run(Fixture.range)
    }

    @Test func aLoadSendsTheStatementsInOrder() async throws {
        let clickHouse = FakeClickHouse()
        try await run(clickHouse: clickHouse, parts: FakePartServer())
        #expect(clickHouse.statements.map(Self.short) == Self.sequence)
        #expect(clickHouse.inserted["\(Self.staging)__part0"] == FakePartServer.rows(0).joined())
        #expect(clickHouse.inserted["\(Self.staging)__part1"] == FakePartServer.rows(1).joined())
    }

    @Test func aPartCutMidwayIsDroppedAndInsertedAgainBeforeItReachesTheStaging() async throws {
        let clickHouse = FakeClickHouse()
        try await run(clickHouse: clickHouse, parts: FakePartServer { part, attempt in part == 1 && attempt == 1 ? .cut(rows: 2) : .whole })
        let statements = clickHouse.statements.map(Self.short)
        let part1 = "\(Self.staging)__part1"
        #expect(Array(statements[9...]) == [
            "DROP TABLE IF EXISTS \(part1)",
            "CREATE TABLE \(part1) AS metrika.visits",
            "INSERT INTO \(part1) (counter_id, date, visit_id) FORMAT TabSeparated",
            "DROP TABLE IF EXISTS \(part1)",  // discardPart: the cut attempt's rows
            "DROP TABLE IF EXISTS \(part1)",
            "CREATE TABLE \(part1) AS metrika.visits",
            "INSERT INTO \(part1) (counter_id, date, visit_id) FORMAT TabSeparated",
            "INSERT INTO \(Self.staging) SELECT * FROM \(part1)",
        ] + Array(Self.sequence[13...]))
        // Only a whole part moves into the staging table, once.
        #expect(statements.filter { $0 == "INSERT INTO \(Self.staging) SELECT * FROM \(part1)" }.count == 1)
        #expect(clickHouse.inserted[part1] == FakePartServer.rows(1).joined())
    }

    /// ClickHouse refuses statement `step`: nothing after it is sent, the target table is written only
    /// if the swap had begun, and the log request is kept for the re-run unless every part was in.
    @Test(arguments: 2..<21)
    func aFailureAtEachStepLeavesTheTargetUntouchedUntilTheSwap(step: Int) async throws {
        let clickHouse = FakeClickHouse(failAt: step)
        let store = MemoryProgressStore()
        await #expect(throws: SimpleFailure.self) {
            try await run(clickHouse: clickHouse, parts: FakePartServer(), store: store)
        }
        let statements = clickHouse.statements.map(Self.short)
        #expect(statements == Array(Self.sequence.prefix(step + 1)))
        let swapBegins = Self.sequence.firstIndex { $0.hasPrefix("ALTER TABLE") }!
        // The refused statement itself took no effect.
        let wroteTarget = statements.dropLast().contains { $0.hasPrefix("ALTER TABLE \(Self.table) ") || $0.hasPrefix("INSERT INTO \(Self.table) ") }
        #expect(wroteTarget == (step > swapBegins))
        // The staging table is kept for the re-run (its drop is the last statement of the sequence),
        // and so is the log request, with the parts recorded as loaded.
        #expect(store.jobs.map(\.requestID) == [7])
    }

    /// A statement cut to its first words: the verb, the table and the clause that tells them apart.
    static func short(_ sql: String) -> String {
        if sql.hasPrefix("CREATE TABLE IF NOT EXISTS") { return "CREATE TABLE IF NOT EXISTS " + sql.split(separator: " ")[5].split(separator: "(")[0].trimmingCharacters(in: .whitespaces) }
        if let range = sql.range(of: " WHERE toYYYYMM(date) IN (") {
            return String(sql[..<range.upperBound]) + String(sql[range.upperBound...].prefix { $0 != ")" }) + ")"
        }
        return sql
    }
}

/// ClickHouse's HTTP interface, faked: records every statement (from the query string or the body),
/// collects inserted bodies by table, answers `1` to `EXISTS`, and refuses statement `failAt`.
final class FakeClickHouse: StreamingHTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var _statements: [String] = []
    private var _inserted: [String: String] = [:]
    let failAt: Int?

    init(failAt: Int? = nil) { self.failAt = failAt }

    var statements: [String] { lock.withLock { _statements } }
    var inserted: [String: String] { lock.withLock { _inserted } }

    func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) throws -> Void
    ) async throws -> StreamedResponseHead {
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "query" }?.value
        let sql = query ?? String(decoding: request.body ?? Data(), as: UTF8.self)
        let index = lock.withLock { () -> Int in
            _statements.append(sql)
            return _statements.count - 1
        }
        if index == failAt {
            return StreamedResponseHead(status: 500, errorBody: Data("Code: 999, e.displayText() = DB::Exception: injected failure\n".utf8))
        }
        if let upload {
            var body: [UInt8] = []
            try await upload { body += $0 }
            let table = String(sql.split(separator: " ")[2])
            lock.withLock { _inserted[table] = String(decoding: body, as: UTF8.self) }
        }
        if sql.hasPrefix("EXISTS") { try receive(Array("1\n".utf8)) }
        return StreamedResponseHead(status: 200)
    }
}
