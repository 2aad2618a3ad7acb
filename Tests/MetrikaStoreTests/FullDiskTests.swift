import CSQLite
import Foundation
import MetrikaCLI
import Testing

@testable import MetrikaModel
@testable import MetrikaStore

/// A full disk is one error whatever way SQLite says it (issue 24 item 11): SQLITE_FULL from a write
/// that found no room (or the page limit), and "disk I/O error" whose cause is ENOSPC or EDQUOT —
/// what a full file system gives when even the `-shm` file cannot grow.
@Suite("Full disk")
struct FullDiskTests {
    @Test(arguments: [
        (SQLITE_FULL, Int32(0), true), (SQLITE_IOERR | (4 << 8), ENOSPC, true),
        (SQLITE_IOERR | (19 << 8), EDQUOT, true),
        (SQLITE_IOERR, EIO, false), (SQLITE_BUSY, ENOSPC, false), (SQLITE_READONLY, 0, false)
    ])
    func fullDisksAreRecognised(code: Int32, errno: Int32, full: Bool) {
        var error = SQLiteError(code: code, message: "disk I/O error", sql: nil)
        error.systemErrno = errno
        #expect(error.isDiskFull == full)
        let stored = HistoryStore.storeError(error, path: "/h.sqlite")
        #expect((stored.kind == .full) == full)
        if full {
            #expect(stored.exitCode == ExitCode.ioError)
            #expect(
                stored.message(.cli)
                    == "the history database /h.sqlite is full (disk I/O error) — free space on its disk, or point METRIKA_DB (or --db) elsewhere"
            )
        }
    }

    /// The page limit gives the real SQLITE_FULL from a write, as a full disk does.
    @Test func aWriteBeyondThePageLimitIsFull() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await HistoryStore.open(path: directory.appendingPathComponent("h.sqlite").path)
        let counter = Counter(id: 1001, name: "Shop", site: "shop.example")
        try await store.upsertCounters([counter])
        try await store.limitPages(to: 1)
        let days = (0..<400).map { Day(ordinal: 20_000 + $0) }
        let values = Dictionary(uniqueKeysWithValues: days.map { ($0, [Double?](repeating: 1, count: 6)) })
        let error = await #expect(throws: StoreError.self) {
            try await store.storeDaily(
                counterID: 1001, range: DateRange(from: days.first!, to: days.last!)!, metrics: Metric.everyday,
                values: values,
                fetchedAt: Date(), settledBefore: days.last!, sampled: false, dataLag: nil)
        }
        #expect(error?.kind == .full)
        #expect(
            try await store.dailyValues(
                counterID: 1001, range: DateRange(from: days.first!, to: days.last!)!, metrics: Metric.everyday
            ).isEmpty)
    }
}
