import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// Several connections (threads with their own `HistoryStore`, and separate `sqlite3` processes) at once:
/// everything must succeed — no "database is locked" — and no reader may ever see half a range.
@Suite(.serialized, .ownThreads) struct ConcurrencyTests {
    let metrics: [Metric] = [.visits, .pageviews]

    /// Every day of `range` tagged with the same number: visits = tag, pageviews = 2 × tag.
    func tagged(_ range: DateRange, _ tag: Double) -> [Day: [Double?]] {
        Dictionary(uniqueKeysWithValues: range.days.map { ($0, [tag, 2 * tag]) })
    }

    @Test func concurrentWritersAndAReaderAllSucceed() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await HistoryStore.open(path: path).upsertCounters([sampleCounter])
            let start = day("2024-01-01")
            // Writer w rewrites days 20w…20w+59 forty times; days 40…59 belong to every writer's range.
            let shared = DateRange(from: start.adding(days: 40), to: start.adding(days: 59))!
            let errors = ErrorBox()
            let readsSeen = ErrorBox()
            let metrics = self.metrics
            var bodies: [@Sendable () async -> Void] = (0..<3).map { writer in
                {
                    do {
                        let store = try await HistoryStore.open(path: path)
                        let range = DateRange(
                            from: start.adding(days: 20 * writer), to: start.adding(days: 20 * writer + 59))!
                        for iteration in 0..<40 {
                            let tag = Double(writer * 1000 + iteration)
                            let values = Dictionary(
                                uniqueKeysWithValues: range.days.map { ($0, [tag, 2 * tag] as [Double?]) })
                            try await store.storeDaily(
                                counterID: 101, range: range, metrics: metrics, values: values,
                                fetchedAt: Date(), settledBefore: range.to, sampled: false, dataLag: nil)
                        }
                    } catch {
                        errors.add("writer \(writer): \(error)")
                    }
                }
            }
            bodies.append {
                do {
                    let store = try await HistoryStore.open(path: path)
                    for _ in 0..<200 {
                        let rows = try await store.dailyValues(counterID: 101, range: shared, metrics: metrics)
                        guard !rows.isEmpty else { continue }
                        // One write covers all of the shared days at once, so a snapshot shows one tag.
                        let tags = Set(rows.values.map { $0[0] })
                        if rows.count != 20 || tags.count != 1
                            || rows.values.contains(where: { $0[1] != $0[0].map { 2 * $0 } })
                        {
                            errors.add("reader saw a partial range: \(rows.count) days, tags \(tags)")
                        }
                        readsSeen.add("read")
                    }
                } catch {
                    errors.add("reader: \(error)")
                }
            }
            await runConcurrently(bodies)
            #expect(errors.all == [])
            let store = try await HistoryStore.open(path: path)
            #expect(try await store.integrityCheck() == "ok")
            #expect(try rawRows(path, "SELECT count(*) FROM fetch_log") == [[.integer(120)]])
            #expect(
                try await store.dailyValues(
                    counterID: 101, range: DateRange(from: start, to: start.adding(days: 99))!, metrics: metrics
                ).count == 100)
            // Each writer's last write is the final word on its own first 20 days.
            #expect(
                try await store.dailyValues(
                    counterID: 101, range: DateRange(from: start, to: start)!, metrics: metrics)[start] == [39, 78])
        }
    }

    @Test func manyProcessesCreatingTheSameNewFile() async throws {
        try await withTemporaryDirectory { directory throws in
            let path = directory + "/new/metrika.sqlite"
            let errors = ErrorBox()
            let openers: [@Sendable () async -> Void] = (0..<4).map { index in
                {
                    do {
                        let store = try await HistoryStore.open(path: path)
                        try await store.upsertCounters([Counter(id: index, name: "c\(index)", site: "s")])
                    } catch {
                        errors.add("opener \(index): \(error)")
                    }
                }
            }
            await runConcurrently(openers)
            #expect(errors.all == [])
            #expect(try await HistoryStore.open(path: path).counters().map(\.id) == [0, 1, 2, 3])
            #expect(
                try rawRows(path, "SELECT count(*) FROM metrika_migrations") == [
                    [.integer(Int64(Schema.migrations.count))]
                ])
        }
    }

    @Test(
        .enabled(
            if: hasSQLite3Tool, "skipped: the sqlite3 shell is missing (apt-get install sqlite3, or run scripts/setup)")
    ) func anotherProcessWritingAtTheSameTime() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await HistoryStore.open(path: path).upsertCounters([sampleCounter, otherCounter])
            // The other process writes counter 202, 150 ranges of 200 days, one transaction each.
            let script = directory + "/writer.sql"
            try Data(rangeWriterScript(counterID: 202, transactions: 150, days: 200).utf8).write(
                to: URL(fileURLWithPath: script))
            let process = try startSQLite3(database: path, script: script, errors: directory + "/writer.err")
            let errors = ErrorBox()
            let metrics = self.metrics
            let writers: [@Sendable () async -> Void] = (0..<2).map { writer in
                {
                    do {
                        let store = try await HistoryStore.open(path: path)
                        let range = DateRange(from: day("2023-01-01"), to: day("2023-12-31"))!
                        for iteration in 0..<25 {
                            let tag = Double(iteration)
                            let values = Dictionary(
                                uniqueKeysWithValues: range.days.map { ($0, [tag, 2 * tag] as [Double?]) })
                            try await store.storeDaily(
                                counterID: 101, range: range, metrics: metrics, values: values,
                                fetchedAt: Date(), settledBefore: range.to, sampled: false, dataLag: nil)
                            _ = try await store.info()
                        }
                    } catch {
                        errors.add("writer \(writer): \(error)")
                    }
                }
            }
            await runConcurrently(writers)
            process.waitUntilExit()
            #expect(errors.all == [])
            #expect(process.terminationStatus == 0)
            #expect(try String(contentsOfFile: directory + "/writer.err", encoding: .utf8) == "")
            let store = try await HistoryStore.open(path: path)
            #expect(try await store.integrityCheck() == "ok")
            #expect(try rawRows(path, "SELECT count(*) FROM daily_values WHERE counter_id = 202") == [[.integer(200)]])
            #expect(
                try rawRows(path, "SELECT count(*) FROM daily_values WHERE counter_id = 101") == [[.integer(365 * 2)]])
        }
    }

    /// kill -9 in the middle of a sync: the database is sound and holds only whole ranges.
    @Test(
        .enabled(
            if: hasSQLite3Tool, "skipped: the sqlite3 shell is missing (apt-get install sqlite3, or run scripts/setup)")
    ) func killNineLeavesNoPartialRange() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await HistoryStore.open(path: path).upsertCounters([otherCounter])
            let script = directory + "/writer.sql"
            try Data(rangeWriterScript(counterID: 202, transactions: 2000, days: 3000).utf8).write(
                to: URL(fileURLWithPath: script))
            let process = try startSQLite3(database: path, script: script, errors: directory + "/writer.err")
            // Let a few ranges commit, then kill it wherever it is.
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, (try? rawRows(path, "SELECT count(*) FROM fetch_log"))?.first?.first?.int ?? 0 < 5
            {
                usleep(10_000)
            }
            usleep(7_000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let store = try await HistoryStore.open(path: path)
            #expect(try await store.integrityCheck() == "ok")
            let ranges = try rawRows(
                path, "SELECT count(*), min(fetch_id), max(fetch_id), min(value), max(value) FROM daily_values")
            let committed = try rawRows(path, "SELECT max(id) FROM fetch_log").first?.first?.int ?? 0
            // Every committed range rewrote all 3000 days, so all of them come from the last committed one.
            #expect(committed >= 5)
            #expect(
                ranges == [
                    [
                        .integer(3000), .int(committed), .int(committed), .real(Double(committed)),
                        .real(Double(committed))
                    ]
                ])
            // And the store goes on working: the next sync completes the range.
            let range = DateRange(from: day("2010-01-01"), to: day("2010-01-31"))!
            try await store.storeDaily(
                counterID: 202, range: range, metrics: [.visits],
                values: Dictionary(uniqueKeysWithValues: range.days.map { ($0, [1.0]) }),
                fetchedAt: Date(), settledBefore: range.to, sampled: false, dataLag: nil)
            #expect(try await store.dailyValues(counterID: 202, range: range, metrics: [.visits]).count == 31)
        }
    }

    /// The store owns its connection on a thread of its own (issue 36 item 4): while another
    /// connection holds the write lock, writes through the store wait there, not on the cooperative
    /// pool. More writes wait at once than the pool has threads, and a task ticking every 50 ms
    /// keeps ticking meanwhile; once the lock is released, every write lands. (A write that blocked
    /// a pool thread would hold it for the 30 s busy timeout: the ticks would stall that long. The
    /// bound is far from both, so a loaded machine's late ticks do not fail it.)
    @Test func writesWaitingForAnotherConnectionsLockLeaveThePoolFree() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            let store = try await HistoryStore.open(path: path)
            try await store.upsertCounters([sampleCounter])
            let holder = try Database(path: path, create: false)
            try holder.execute("BEGIN IMMEDIATE")
            let writerCount = ProcessInfo.processInfo.activeProcessorCount + 2
            let metrics = self.metrics
            let writes = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<writerCount {
                        group.addTask {
                            let range = DateRange(
                                from: day("2024-01-01").adding(days: writer), to: day("2024-01-01").adding(days: writer)
                            )!
                            try await store.storeDaily(
                                counterID: 101, range: range, metrics: metrics, values: [range.from: [1, 2]],
                                fetchedAt: Date(), settledBefore: range.to, sampled: false, dataLag: nil)
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Ticks while the writes wait on the lock: each 50 ms sleep must end about on time.
            let clock = ContinuousClock()
            var gaps: [Duration] = []
            var last = clock.now
            for _ in 0..<12 {
                try await Task.sleep(for: .milliseconds(50))
                let now = clock.now
                gaps.append(now - last)
                last = now
            }
            #expect(
                try rawRows(path, "SELECT count(*) FROM fetch_log") == [[.integer(0)]], "the writes waited for the lock"
            )
            try holder.execute("COMMIT")
            try await writes.value
            #expect(gaps.reduce(.zero, +) < .seconds(15), "ticks: \(gaps)")
            #expect(try rawRows(path, "SELECT count(*) FROM fetch_log") == [[.integer(Int64(writerCount))]])
            #expect(
                try await store.dailyValues(counterID: 101, range: range("2024-01-01", "2024-01-31"), metrics: metrics)
                    .count == writerCount)
        }
    }

    /// Opening goes through the store's own queue too (issue 36): a history that must be migrated
    /// while another connection holds the write lock waits on that queue, not on the cooperative pool.
    /// More opens wait at once than the pool has threads, a task ticking every 50 ms keeps ticking, and
    /// once the lock is released every open migrates (one of them) and succeeds.
    @Test func opensWaitingToMigrateLeaveThePoolFree() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            try await HistoryStore.open(path: path).upsertCounters([sampleCounter])
            try backToVersion10(path)
            let holder = try Database(path: path, create: false)
            try holder.execute("BEGIN IMMEDIATE")
            let openers = ProcessInfo.processInfo.activeProcessorCount + 2
            let opens = Task {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<openers {
                        group.addTask { try await HistoryStore.open(path: path).counter(id: sampleCounter.id) != nil }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            let clock = ContinuousClock()
            var gaps: [Duration] = []
            var last = clock.now
            for _ in 0..<12 {
                try await Task.sleep(for: .milliseconds(50))
                let now = clock.now
                gaps.append(now - last)
                last = now
            }
            #expect(
                try rawRows(path, "SELECT max(version) FROM metrika_migrations") == [[.integer(10)]],
                "the opens waited for the lock")
            try holder.execute("COMMIT")
            #expect(try await opens.value == openers)
            #expect(gaps.reduce(.zero, +) < .seconds(15), "ticks: \(gaps)")
            #expect(
                try rawRows(path, "SELECT max(version) FROM metrika_migrations") == [
                    [.integer(Int64(Schema.latestVersion))]
                ])
        }
    }

    /// An sqlite3 script that writes `transactions` ranges of `days` days, each the way `storeDaily` does:
    /// one immediate transaction with a fetch-log row and a value per day, tagged with the fetch id.
    private func rangeWriterScript(counterID: Int, transactions: Int, days: Int) -> String {
        var script = ".timeout 30000\n.bail on\nPRAGMA foreign_keys = ON;\n"
        for _ in 0..<transactions {
            script += """
                BEGIN IMMEDIATE;
                INSERT INTO fetch_log (counter_id, range_from, range_to, metrics, fetched_at, settled_before, sampled)
                    VALUES (\(counterID), '2000-01-01', date('2000-01-01', '+\(days - 1) days'), 'ym:s:visits', 0, '2000-01-01', 0);
                INSERT OR REPLACE INTO daily_values (counter_id, metric, day, unit, value, settled, fetch_id)
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(days - 1))
                    SELECT \(counterID), 'ym:s:visits', date('2000-01-01', '+' || i || ' days'), 'count',
                        last_insert_rowid(), 1, last_insert_rowid() FROM n;
                COMMIT;

                """
        }
        return script
    }

    private func startSQLite3(database: String, script: String, errors: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sqlite3Path)
        process.arguments = [database]
        process.standardInput = FileHandle(forReadingAtPath: script)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        return process
    }

    /// Overlapping `metrika alert` runs (issue 32): eight connections on eight threads claim the same
    /// new episode, and then the same "back to normal": exactly one wins each, and the history holds
    /// the winner's episode.
    @Test func ofConnectionsClaimingTheSameAlertExactlyOneWins() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            _ = try await HistoryStore.open(path: path)
            let episode = AlertEpisode(
                counterID: 101, metric: "ym:s:visits", kind: "stopped", since: day("2026-11-28"),
                lastDay: day("2026-11-28"),
                value: 0, expected: 600, notifiedAt: Date(timeIntervalSince1970: 1_795_953_600))
            let errors = ErrorBox()
            let wins = ErrorBox()
            func race(_ news: AlertNews, _ tag: String) async {
                await runConcurrently(
                    (0..<8).map { thread in
                        {
                            do {
                                let store = try await HistoryStore.open(path: path)
                                let claims = try await store.claimNews([news])
                                if claims == [nil] { return }
                                wins.add("\(tag) \(thread)")
                            } catch {
                                errors.add("thread \(thread): \(error)")
                            }
                        }
                    })
            }
            await race(.open(episode), "open")
            #expect(errors.all == [])
            #expect(wins.all.count == 1, "\(wins.all)")
            let stored = try #require(
                try await HistoryStore.open(path: path).openEpisodes(counterID: 101, grain: .day)["ym:s:visits"])
            #expect(stored.kind == "stopped" && stored.id != nil)
            await race(.close(stored), "close")
            #expect(errors.all == [])
            #expect(wins.all.filter { $0.hasPrefix("close") }.count == 1, "\(wins.all)")
            #expect(try await HistoryStore.open(path: path).openEpisodes(counterID: 101, grain: .day).isEmpty)
        }
    }
}
