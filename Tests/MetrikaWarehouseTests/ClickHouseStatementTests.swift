import Foundation
import MetrikaCLI
import MetrikaModel
import Testing

@testable import MetrikaAPI
@testable import MetrikaWarehouse

/// The statements a log load sends ClickHouse, in order, and what a failure at each of them leaves:
/// the target table is written only by the swap at the end, so it is untouched by any earlier failure.
@Suite("ClickHouse statement sequence")
struct ClickHouseStatementTests {
    static let table = "metrika.visits"
    static let staging = "metrika.visits__staging_1001_20260601_20260602"

    /// The whole sequence for a load of parts 0 and 1 (statements shortened to their first words) into
    /// a table partitioned by counter and day: the new rows replace the range's days, nothing else is
    /// copied.
    static let sequence = [
        "CREATE DATABASE IF NOT EXISTS metrika",
        "CREATE TABLE IF NOT EXISTS metrika.visits",
        "SELECT … FROM system.tables",
        "SELECT … FROM system.columns",
        "SELECT … FROM system.settings",
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
        "SELECT count(), any(counter_id), any(date) FROM \(staging) WHERE NOT (counter_id = 1001 AND date >= '2026-06-01' AND date <= '2026-06-02') FORMAT TabSeparated",
        "DROP TABLE IF EXISTS \(staging)__swap",
        "CREATE TABLE \(staging)__swap AS metrika.visits",
        "INSERT INTO \(staging)__swap SELECT * FROM \(staging) LIMIT 1 BY counter_id, visit_id",
        "SELECT DISTINCT date FROM \(staging)__swap WHERE counter_id = 1001 FORMAT TabSeparated",
        // The fake parts hold 2026-06-01 only: the other day of the range had no visits, so it is emptied.
        "ALTER TABLE metrika.visits REPLACE PARTITION (1001, '2026-06-01') FROM \(staging)__swap, DROP PARTITION (1001, '2026-06-02')",
        "DROP TABLE IF EXISTS \(staging)__swap",
        "DROP TABLE IF EXISTS \(staging)",
        // After the swap, for --list: the rows each day holds now (a failure here leaves them unknown).
        "SELECT date, count() FROM metrika.visits WHERE counter_id = 1001 AND date >= '2026-06-01' AND date <= '2026-06-02' GROUP BY date FORMAT TabSeparated"
    ]

    /// A table made by metrika before the day partitions (by month): the rest of the month is kept
    /// through the swap, then the month is replaced.
    static let monthlyTail = [
        "INSERT INTO \(staging)__swap SELECT * FROM \(staging) LIMIT 1 BY counter_id, visit_id",
        "INSERT INTO \(staging)__swap SELECT * FROM metrika.visits WHERE toYYYYMM(date) IN (202606)",
        "SELECT DISTINCT toYYYYMM(date) FROM \(staging)__swap FORMAT TabSeparated",
        "ALTER TABLE metrika.visits REPLACE PARTITION 202606 FROM \(staging)__swap",
        "DROP TABLE IF EXISTS \(staging)__swap",
        "DROP TABLE IF EXISTS \(staging)",
        // After the swap, for --list: the rows each day holds now (a failure here leaves them unknown).
        "SELECT date, count() FROM metrika.visits WHERE counter_id = 1001 AND date >= '2026-06-01' AND date <= '2026-06-02' GROUP BY date FORMAT TabSeparated"
    ]

    func run(clickHouse: FakeClickHouse, parts: FakePartServer, store: MemoryProgressStore? = MemoryProgressStore())
        async throws
    {
        let sleeper = SleepRecorder()
        let notes = NoteRecorder()
        let settings = try ClickHouseSettings.make(
            url: "http://127.0.0.1:8123", table: nil, source: .visits, environment: [:], timeout: 30)
        let destination = try await ClickHouseDestination.prepare(
            settings, counterID: 1001, source: .visits, fields: Fixture.fields, transport: clickHouse)
        let exporter = Fixture.exporter(
            client: Fixture.client(api: FakeLogsAPI(parts: [0, 1]), parts: parts, sleeper: sleeper),
            destination: destination, store: store,
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
        try await run(
            clickHouse: clickHouse,
            parts: FakePartServer { part, attempt in part == 1 && attempt == 1 ? .cut(rows: 2) : .whole })
        let statements = clickHouse.statements.map(Self.short)
        let part1 = "\(Self.staging)__part1"
        #expect(
            Array(statements[12...]) == [
                "DROP TABLE IF EXISTS \(part1)",
                "CREATE TABLE \(part1) AS metrika.visits",
                "INSERT INTO \(part1) (counter_id, date, visit_id) FORMAT TabSeparated",
                "DROP TABLE IF EXISTS \(part1)", // discardPart: the cut attempt's rows
                "DROP TABLE IF EXISTS \(part1)",
                "CREATE TABLE \(part1) AS metrika.visits",
                "INSERT INTO \(part1) (counter_id, date, visit_id) FORMAT TabSeparated",
                "INSERT INTO \(Self.staging) SELECT * FROM \(part1)"
            ] + Array(Self.sequence[16...]))
        // Only a whole part moves into the staging table, once.
        #expect(statements.filter { $0 == "INSERT INTO \(Self.staging) SELECT * FROM \(part1)" }.count == 1)
        #expect(clickHouse.inserted[part1] == FakePartServer.rows(1).joined())
    }

    /// ClickHouse refuses statement `step`: nothing after it is sent, the target table is written only
    /// if the swap had begun, and the log request is kept for the re-run unless every part was in.
    /// (The last statement counts the rows for --list after the swap: its failure fails nothing.)
    @Test(arguments: 2..<sequence.count - 1)
    func aFailureAtEachStepLeavesTheTargetUntouchedUntilTheSwap(step: Int) async throws {
        let clickHouse = FakeClickHouse(failAt: step)
        let store = MemoryProgressStore()
        let failure = await #expect(throws: ClickHouseError.self) {
            try await run(clickHouse: clickHouse, parts: FakePartServer(), store: store)
        }
        let statements = clickHouse.statements.map(Self.short)
        #expect(statements == Array(Self.sequence.prefix(step + 1)))
        // The refusal names the table, the status and the server's first line; it is not about credentials.
        guard case .rejected(_, let table, 500, let answer, false)? = failure else {
            Issue.record("expected ClickHouse's refusal, got \(String(describing: failure))")
            return
        }
        #expect(table == "metrika.visits" && answer.hasPrefix("Code: 999,"))
        #expect(failure?.exitCode == ExitCode.dataError)
        let swapBegins = Self.sequence.firstIndex { $0.hasPrefix("ALTER TABLE") }!
        // The refused statement itself took no effect.
        let wroteTarget = statements.dropLast().contains {
            $0.hasPrefix("ALTER TABLE \(Self.table) ") || $0.hasPrefix("INSERT INTO \(Self.table) ")
        }
        #expect(wroteTarget == (step > swapBegins))
        // The staging table is kept for the re-run (its drop is the last statement of the sequence),
        // and so is the log request, with the parts recorded as loaded.
        // Nothing is ordered before the table is known to take the rows.
        #expect(store.jobs.map(\.requestID) == (step < 5 ? [] : [7]))
    }

    /// Discarding a range drops the staging tables the server lists, but only names metrika could have
    /// made: a name read back goes into the statement unquoted, so `…__x, visits` is left alone.
    @Test func discardingARangeDropsOnlyNamesMetrikaCouldHaveMade() async throws {
        let clickHouse = FakeClickHouse()
        let prefix = String(Self.staging.dropFirst("metrika.".count))
        clickHouse.stagingNames = [prefix, prefix + "__part0", prefix + "__x, visits"]
        let settings = try ClickHouseSettings.make(
            url: "http://127.0.0.1:8123", table: nil, source: .visits, environment: [:], timeout: 30)
        let destination = try await ClickHouseDestination.prepare(
            settings, counterID: 1001, source: .visits, fields: Fixture.fields, transport: clickHouse)
        try await destination.discardRange(from: Day(iso: "2026-06-01")!, to: Day(iso: "2026-06-02")!)
        let drops = clickHouse.statements.filter { $0.hasPrefix("DROP TABLE") }
        #expect(
            drops == ["DROP TABLE IF EXISTS \(Self.staging)", "DROP TABLE IF EXISTS \(Self.staging)__part0"], "\(drops)"
        )
    }

    @Test func aTableOfOlderMetrikaPartitionedByMonthIsStillReplacedByMonth() async throws {
        let clickHouse = FakeClickHouse(partitionKey: "toYYYYMM(date)")
        try await run(clickHouse: clickHouse, parts: FakePartServer())
        let statements = clickHouse.statements.map(Self.short)
        #expect(Array(statements.suffix(Self.monthlyTail.count)) == Self.monthlyTail)
        #expect(Array(statements.prefix(20)) == Array(Self.sequence.prefix(20)))
    }

    /// A table made by hand with fewer partitions (a counter's month): the counter's other days of
    /// the month are kept through the swap, other counters are not read.
    /// Rows that arrived outside the counter and range (a date ClickHouse read as 1970-01-01) would be
    /// lost by the swap: the load fails instead, before anything is replaced.
    @Test func rowsOutsideTheRangeStopTheLoadBeforeTheSwap() async throws {
        let clickHouse = FakeClickHouse(strayRows: 3)
        let failure = await #expect(throws: ClickHouseError.self) {
            try await run(clickHouse: clickHouse, parts: FakePartServer())
        }
        guard case .strayRows(3, 1001, _, _, "metrika.visits", _, _)? = failure else {
            Issue.record("expected the stray rows to be named, got \(String(describing: failure))")
            return
        }
        #expect(failure?.exitCode == ExitCode.dataError)
        let statements = clickHouse.statements.map(Self.short)
        #expect(statements.last?.hasPrefix("SELECT count(), any(counter_id), any(date)") == true)
        #expect(!statements.contains { $0.hasPrefix("ALTER TABLE") })
    }

    @Test func aTablePartitionedByCounterAndMonthKeepsOnlyTheCountersOtherDays() async throws {
        let clickHouse = FakeClickHouse(partitionKey: "(counter_id, toYYYYMM(date))")
        try await run(clickHouse: clickHouse, parts: FakePartServer())
        let statements = clickHouse.statements.map(Self.short)
        #expect(
            Array(statements.suffix(6)) == [
                "INSERT INTO \(Self.staging)__swap SELECT * FROM metrika.visits WHERE counter_id = 1001 AND toYYYYMM(date) IN (202606) AND NOT (counter_id = 1001 AND date >= '2026-06-01' AND date <= '2026-06-02')",
                "SELECT DISTINCT toYYYYMM(date) FROM \(Self.staging)__swap FORMAT TabSeparated",
                "ALTER TABLE metrika.visits REPLACE PARTITION (1001, 202606) FROM \(Self.staging)__swap",
                "DROP TABLE IF EXISTS \(Self.staging)__swap",
                "DROP TABLE IF EXISTS \(Self.staging)",
                Self.sequence.last!
            ])
    }

    @Test(arguments: [
        ("(counter_id, date)", "counter_id,date"), ("counter_id, date", "counter_id,date"),
        ("toYYYYMM(date)", "toYYYYMM(date)"),
        ("(counter_id, toYYYYMM(date))", "counter_id,toYYYYMM(date)"),
        ("(toYYYYMM(date), counter_id)", "toYYYYMM(date),counter_id"),
        ("toMonday(date), (counter_id)", "toMonday(date),(counter_id)")
    ])
    func partitionKeysAreComparedWithoutSpacesOrEnclosingParentheses(key: String, normalized: String) {
        #expect(ClickHouseTarget.normalized(key) == normalized)
    }

    /// What the replace cannot handle is refused before a log is ordered (exit 78, one line naming
    /// the table and what to do), and nothing is written.
    @Test(arguments: [
        (
            "Distributed", "(counter_id, date)", "", "is a Distributed table", "--cluster NAME",
            ClickHouseError.distributedTable(table: "metrika.visits", hint: .loadAsCluster)
        ),
        (
            "Log", "", "", "has engine Log", "MergeTree tables",
            .unsupportedEngine(table: "metrika.visits", engine: "Log")
        ),
        (
            "ReplacingMergeTree", "(counter_id, date)", "", "has engine ReplacingMergeTree", "MergeTree tables",
            .unsupportedEngine(table: "metrika.visits", engine: "ReplacingMergeTree")
        ),
        (
            "MergeTree", "toMonday(date)", "", "is partitioned by toMonday(date)", "PARTITION BY (counter_id, date)",
            .unsupportedPartitionKey(table: "metrika.visits", key: "toMonday(date)")
        ),
        (
            "MergeTree", "", "", "is partitioned by nothing", "PARTITION BY (counter_id, date)",
            .unsupportedPartitionKey(table: "metrika.visits", key: "")
        ),
        (
            "MergeTree", "(counter_id, date)", "visit_id", "has no column for ym:s:visitID",
            "ADD COLUMN visit_id UInt64",
            .missingColumns(table: "metrika.visits", fields: ["ym:s:visitID"])
        )
    ])
    func whatTheReplaceCannotHandleIsRefusedBeforeTheOrder(
        engine: String, key: String, missing: String, says: String, advice: String, expected: ClickHouseError
    ) async throws {
        let clickHouse = FakeClickHouse(engine: engine, partitionKey: key, missingColumn: missing)
        let api = FakeLogsAPI(parts: [0, 1])
        let settings = try ClickHouseSettings.make(
            url: "http://127.0.0.1:8123", table: nil, source: .visits, environment: [:], timeout: 30)
        do {
            _ = try await ClickHouseDestination.prepare(
                settings, counterID: 1001, source: .visits, fields: Fixture.fields, transport: clickHouse)
            Issue.record("prepare accepted a \(engine) table partitioned by \(key)")
        } catch let failure as ClickHouseError {
            #expect(failure == expected)
            #expect(failure.exitCode == 78)
            #expect(failure.message.contains("metrika.visits \(says)"), "\(failure.message)")
            #expect(failure.message(.cli).contains(advice), "\(failure.message(.cli))")
            #expect(!failure.message.contains("\n"))
        }
        #expect(clickHouse.statements.count == 4)
        #expect(api.calls.isEmpty)
    }

    /// Current servers refuse an INSERT block touching more than 100 partitions unless told otherwise;
    /// 18.16 knows no such setting (and would refuse an unknown one).
    @Test(arguments: [true, false])
    func thePartitionLimitIsLiftedOnlyWhereTheServerHasIt(limited: Bool) async throws {
        let clickHouse = FakeClickHouse(partitionLimit: limited)
        try await run(clickHouse: clickHouse, parts: FakePartServer())
        let lifted = clickHouse.queryStrings.filter { $0.contains("max_partitions_per_insert_block=0") }.count
        // Every statement after the settings were read carries it.
        #expect(lifted == (limited ? Self.sequence.count - 5 : 0))
    }

    @Test func aReplicatedTargetGetsPlainMergeTreeHelpersWithItsKeys() throws {
        let target = try ClickHouseTarget(
            table: "metrika.visits_local", engine: "ReplicatedMergeTree", partitionKey: "(counter_id, date)",
            sortingKey: "counter_id, date, visit_id",
            primaryKey: "counter_id, date, visit_id", samplingKey: "", columns: [:], clusterHint: .loadAsCluster)
        #expect(
            target.createHelper("metrika.s")
                == "CREATE TABLE metrika.s AS metrika.visits_local ENGINE = MergeTree() PARTITION BY (counter_id, date) ORDER BY (counter_id, date, visit_id)"
        )
        let plain = try ClickHouseTarget(
            table: "metrika.visits", engine: "MergeTree", partitionKey: "toYYYYMM(date)",
            sortingKey: "counter_id, date, visit_id",
            primaryKey: "counter_id, date, visit_id", samplingKey: "", columns: [:], clusterHint: .loadAsCluster)
        #expect(plain.createHelper("metrika.s") == "CREATE TABLE metrika.s AS metrika.visits")
        #expect(plain.scheme == .byMonth)
    }

    /// Issue 32.4: a column's type must take its field's values; only the same type or a wider
    /// integer every value fits is taken, compared as ClickHouse spells it.
    @Test(arguments: [
        ("UInt32", "UInt32", true), ("UInt64", "UInt32", true), ("Int64", "UInt32", true), ("Int32", "UInt32", false),
        ("UInt16", "UInt32", false), ("Int64", "Int32", true), ("UInt64", "Int32", false),
        ("Array(UInt64)", "Array(UInt32)", true),
        ("String", "UInt32", false), ("String", "Date", false), ("String", "Array(String)", false),
        ("DateTime('Europe/Moscow')", "DateTime", false),
        ("Nullable(UInt32)", "UInt32", false), ("Array(String)", "Array(String)", true)
    ])
    func aColumnTakesTheSameTypeOrAWiderInteger(found: String, wanted: String, takes: Bool) {
        #expect(ClickHouseTarget.takes(found, wanted) == takes)
    }

    @Test func columnsOfTheWrongTypeAreNamedWithTheAlterThatFixesThemOrTheKeyThatForbidsIt() throws {
        let target = try ClickHouseTarget(
            table: "metrika.visits", engine: "MergeTree", partitionKey: "(counter_id, date)",
            sortingKey: "counter_id, date, visit_id",
            primaryKey: "counter_id, date, visit_id", samplingKey: "",
            columns: [
                "counter_id": "String", "date": "Date", "visit_id": "UInt64", "page_views": "String",
                "goals_id": "Array(UInt64)"
            ], clusterHint: .loadAsCluster)
        #expect(
            throws: ClickHouseError.wrongColumnTypes(
                table: "metrika.visits",
                columns: [
                    .init(column: "counter_id", found: "String", wanted: "UInt32", inKey: true),
                    .init(column: "page_views", found: "String", wanted: "Int32", inKey: false)
                ])
        ) {
            try target.check(fields: ["ym:s:counterID", "ym:s:date", "ym:s:visitID", "ym:s:pageViews", "ym:s:goalsID"])
        }
        let failure = ClickHouseError.wrongColumnTypes(
            table: "metrika.visits",
            columns: [.init(column: "page_views", found: "String", wanted: "Int32", inKey: false)])
        #expect(failure.exitCode == 78)
        #expect(
            failure.message.contains("ALTER TABLE metrika.visits MODIFY COLUMN page_views Int32"), "\(failure.message)")
    }

    /// A statement cut to its first words: the verb, the table and the clause that tells them apart.
    static func short(_ sql: String) -> String {
        if sql.hasPrefix("SELECT"), !sql.hasPrefix("SELECT DISTINCT"), let from = sql.range(of: " FROM system.") {
            return "SELECT … FROM system." + sql[from.upperBound...].prefix { $0 != " " }
        }
        if sql.hasPrefix("CREATE TABLE IF NOT EXISTS") {
            return "CREATE TABLE IF NOT EXISTS "
                + sql.split(separator: " ")[5].split(separator: "(")[0].trimmingCharacters(in: .whitespaces)
        }
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
    let engine: String
    let partitionKey: String
    let missingColumn: String
    let partitionLimit: Bool
    let strayRows: Int
    /// The answer to `SELECT name FROM system.tables` (a range's staging tables), when given.
    var stagingNames: [String]? = nil
    private var _queryStrings: [String] = []
    /// The URL query string of every request.
    var queryStrings: [String] { lock.withLock { _queryStrings } }

    /// A `MergeTree` partitioned by `(counter_id, date)` with the columns of `Fixture.fields`, unless told otherwise.
    init(
        failAt: Int? = nil, engine: String = "MergeTree", partitionKey: String = "(counter_id, date)",
        missingColumn: String = "", partitionLimit: Bool = false, strayRows: Int = 0
    ) {
        self.strayRows = strayRows
        self.partitionLimit = partitionLimit
        self.failAt = failAt
        self.engine = engine
        self.partitionKey = partitionKey
        self.missingColumn = missingColumn
    }

    var statements: [String] { lock.withLock { _statements } }
    var inserted: [String: String] { lock.withLock { _inserted } }

    func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) async throws -> Void
    ) async throws -> StreamedResponseHead {
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first {
            $0.name == "query"
        }?.value
        let sql = query ?? String(decoding: request.body ?? Data(), as: UTF8.self)
        let index = lock.withLock { () -> Int in
            _statements.append(sql)
            _queryStrings.append(request.url.query ?? "")
            return _statements.count - 1
        }
        if index == failAt {
            return StreamedResponseHead(
                status: 500, errorBody: Data("Code: 999, e.displayText() = DB::Exception: injected failure\n".utf8))
        }
        if let upload {
            var body: [UInt8] = []
            try await upload { body += $0 }
            let table = String(sql.split(separator: " ")[2])
            lock.withLock { _inserted[table] = String(decoding: body, as: UTF8.self) }
        }
        if sql.hasPrefix("EXISTS") { try await receive(Array("1\n".utf8)) }
        if sql.hasPrefix("SELECT name FROM system.tables"), let stagingNames {
            try await receive(Array(stagingNames.map { $0 + "\n" }.joined().utf8))
        } else if sql.contains("FROM system.tables") {
            try await receive(
                Array("\(engine)\t\(partitionKey)\tcounter_id, date, visit_id\tcounter_id, date, visit_id\t\n".utf8))
        }
        if sql.hasPrefix("SELECT count(), any(counter_id)") {
            try await receive(Array("\(strayRows)\t1001\t1970-01-01\n".utf8))
        }
        if sql.hasPrefix("SELECT DISTINCT date") { try await receive(Array("2026-06-01\n".utf8)) }
        if sql.hasPrefix("SELECT DISTINCT toYYYYMM") { try await receive(Array("202606\n".utf8)) }
        if sql.contains("FROM system.settings") { try await receive(Array((partitionLimit ? "1\n" : "0\n").utf8)) }
        if sql.contains("FROM system.columns") {
            let columns = [("counter_id", "UInt32"), ("date", "Date"), ("visit_id", "UInt64")].filter {
                $0.0 != missingColumn
            }
            try await receive(Array(columns.map { "\($0.0)\t\($0.1)\n" }.joined().utf8))
        }
        return StreamedResponseHead(status: 200)
    }
}
