import Foundation
import MetrikaRender
import MetrikaStore
import Synchronization
import Testing

@testable import MetrikaMCP

/// The answers `metrika mcp --listen` keeps (`AnswerCache`) and the history's stamp they are kept
/// under (`HistoryGeneration`): a write by anyone is a new stamp, another scope never sees an answer,
/// the id is always the request's, the bytes stay bounded.
@Suite("MCP remote answer cache")
struct AnswerCacheTests {
    static let stamp = HistoryGeneration.Stamp(inode: 1, opening: 1, version: 1)
    static let report: JSONValue = .object([
        ("to", .string("2026-05-31")), ("counter_ids", .array([.number(1001)])), ("from", .string("2026-05-01"))
    ])

    static func key(
        scope: [Int]? = [1001], arguments: JSONValue = report, minute: Int = 100,
        generation: HistoryGeneration.Stamp = stamp, revision: String = "2025-11-25"
    ) -> AnswerCache.Key {
        AnswerCache.Key(
            scope: scope, revision: revision, tool: "get_report", arguments: arguments, minute: minute,
            generation: generation)
    }

    static func line(id: String, _ text: String) -> String {
        #"{"jsonrpc":"2.0","id":"# + id + #","result":{"content":[{"type":"text","text":""# + text
            + #""}],"isError":false}}"#
    }

    @Test func theAnswerCarriesTheAskingRequestsID() {
        let cache = AnswerCache()
        cache.keep(Self.line(id: "7", "May"), id: "7", for: Self.key())
        #expect(cache.answer(for: Self.key(), id: #""abc-1""#) == Self.line(id: #""abc-1""#, "May"))
        #expect(cache.answer(for: Self.key(), id: "12") == Self.line(id: "12", "May"))
        // A line whose id is not the one said is not kept.
        cache.keep(Self.line(id: "8", "June"), id: "9", for: Self.key(minute: 5))
        #expect(cache.answer(for: Self.key(minute: 5), id: "8") == nil)
    }

    @Test func anotherScopeRevisionMinuteOrStampNeverSeesIt() {
        let cache = AnswerCache()
        cache.keep(Self.line(id: "1", "only 1001"), id: "1", for: Self.key())
        #expect(cache.answer(for: Self.key(scope: nil), id: "1") == nil)
        #expect(cache.answer(for: Self.key(scope: [1001, 1002]), id: "1") == nil)
        #expect(cache.answer(for: Self.key(revision: "stateless 2026-07-28"), id: "1") == nil)
        #expect(cache.answer(for: Self.key(minute: 101), id: "1") == nil)
        #expect(
            cache.answer(for: Self.key(generation: .init(inode: 1, opening: 1, version: 2)), id: "1") == nil)
        let other: JSONValue = .object([("counter_ids", .array([.number(1001)])), ("from", .string("2026-05-02"))])
        #expect(cache.answer(for: Self.key(arguments: other), id: "1") == nil)
        // The same scope in another order, the same arguments in another order: the same question.
        #expect(cache.answer(for: Self.key(scope: [1001]), id: "1") != nil)
        let reordered: JSONValue = .object([
            ("from", .string("2026-05-01")), ("counter_ids", .array([.number(1001)])), ("to", .string("2026-05-31"))
        ])
        #expect(cache.answer(for: Self.key(arguments: reordered), id: "1") != nil)
    }

    @Test func itStaysWithinItsBytesAndOutlivesNoLifetime() {
        let now = Mutex(ContinuousClock.now)
        let cache = AnswerCache(capacityBytes: 8_000, lifetime: .seconds(60), clock: { now.withLock { $0 } })
        let text = String(repeating: "x", count: 900)
        for minute in 0..<40 {
            cache.keep(Self.line(id: "1", text), id: "1", for: Self.key(minute: minute))
            #expect(cache.usage.bytes <= 8_000)
        }
        #expect(cache.usage.answers < 10)
        // The newest is there; the first went.
        #expect(cache.answer(for: Self.key(minute: 39), id: "1") != nil)
        #expect(cache.answer(for: Self.key(minute: 0), id: "1") == nil)
        // Too large for the cache: not kept at all.
        cache.keep(Self.line(id: "1", String(repeating: "y", count: 4_000)), id: "1", for: Self.key(minute: 50))
        #expect(cache.answer(for: Self.key(minute: 50), id: "1") == nil)
        // A minute on (live parts such as annotations): asked again, built again.
        now.withLock { $0 += .seconds(61) }
        #expect(cache.answer(for: Self.key(minute: 39), id: "1") == nil)
    }

    @Test func aWriteByAnotherConnectionOrProcessIsANewStamp() async throws {
        let directory = NSTemporaryDirectory() + "metrika-generation-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history.sqlite"
        let generation = HistoryGeneration(path: path)
        #expect(generation.current() == nil, "no history yet: nothing may be kept")
        let store = try await HistoryStore.open(path: path)
        let first = try #require(generation.current())
        #expect(generation.current() == first, "nothing written: the same stamp")
        // This process's own store writes.
        _ = try await store.recordRun(
            job: "test", failures: [RunFailure(subject: "1001", message: "one", exitCode: 69)], settled: { _ in true },
            interactive: true, at: Date(timeIntervalSince1970: 1_780_000_000))
        let second = try #require(generation.current())
        #expect(second != first)
        // Another process writes (the sqlite3 shell, when there is one).
        if let shell = ["/usr/bin/sqlite3", "/bin/sqlite3"].first(where: FileManager.default.isExecutableFile) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: shell)
            process.arguments = [path, "CREATE TABLE IF NOT EXISTS t(x); INSERT INTO t VALUES (1);"]
            process.standardOutput = FileHandle.nullDevice
            try await Task.detached {
                try process.run()
                process.waitUntilExit()
            }.value
            #expect(process.terminationStatus == 0)
            #expect(generation.current() != second)
        }
        await store.close()
    }

    @Test func aMembersCallsAreCountedPerSecondOverTheMinute() {
        var window = CallWindow()
        for second in 0..<3 {
            for _ in 0..<20 { #expect(window.admit(second: second, limit: 60) == nil) }
        }
        #expect(window.admit(second: 3, limit: 60) == 57)
        #expect(window.admit(second: 59, limit: 60) == 1)
        // The first second's 20 left the window: 20 more, not 21.
        for _ in 0..<20 { #expect(window.admit(second: 60, limit: 60) == nil) }
        #expect(window.admit(second: 60, limit: 60) == 1)
        // A large limit costs the same few bytes.
        var wide = CallWindow()
        for second in 0..<120 {
            for _ in 0..<50 { _ = wide.admit(second: second, limit: 1_000_000) }
        }
        #expect(wide.admit(second: 119, limit: 3_000) == 1)
    }
}
