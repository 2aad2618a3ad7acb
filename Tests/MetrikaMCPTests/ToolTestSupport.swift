import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaSimulator
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases
import Synchronization

@testable import MetrikaMCP

/// The report's JSON value (the simulator has a JSONValue of its own).
typealias JSONValue = MetrikaRender.JSONValue

/// The simulator in this process on a loopback port (reached through libcurl, as the binary reaches
/// it), with its clock pinned: one per suite.
final class ToolSimulator: Sendable {
    let server: MetrikaSimulator.HTTPServer
    let baseURL: String

    static let fixturesRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures", isDirectory: true)

    init(fixtures: String = "default", now: Date) throws {
        let simulator = try Simulator(
            options: SimulatorOptions(
                fixturesDirectory: Self.fixturesRoot.appendingPathComponent(fixtures, isDirectory: true), now: now))
        server = MetrikaSimulator.HTTPServer(idleTimeoutSeconds: 10, handler: { simulator.handle($0) })
        baseURL = "http://127.0.0.1:\(try server.start(port: 0))"
    }

    deinit { server.stop() }

    /// The queries of the requests the simulator logged whose path starts with `prefix` and whose
    /// query names counter `counter`.
    func requestQueries(pathPrefix: String, counter: Int) throws -> [String] {
        let data = try Data(contentsOf: URL(string: baseURL + "/__sim/log")!)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let requests = object?["requests"] as? [[String: Any]] ?? []
        return requests.filter { ($0["path"] as? String ?? "").hasPrefix(pathPrefix) }.map {
            $0["query"] as? String ?? ""
        }.filter { query in
            query.contains("ids=\(counter)&") || query.hasSuffix("ids=\(counter)")
        }
    }

    /// Requests the simulator logged (control requests excluded) whose path starts with `prefix`.
    /// `counter`: only those whose query names it (tests of a suite run at once and share the log).
    /// The requests logged under `pathPrefix` (for `counter`, and whose query holds `containing`: a
    /// test's own dates, so that tests side by side on one simulator never count each other's).
    func requestCount(pathPrefix: String, counter: Int? = nil, containing: String? = nil) throws -> Int {
        let data = try Data(contentsOf: URL(string: baseURL + "/__sim/log")!)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let requests = object?["requests"] as? [[String: Any]] ?? []
        return requests.filter { request in
            guard (request["path"] as? String ?? "").hasPrefix(pathPrefix) else { return false }
            let query = request["query"] as? String ?? ""
            if let containing, !query.contains(containing) { return false }
            guard let counter else { return true }
            return query.contains("ids=\(counter)&") || query.hasSuffix("ids=\(counter)")
                || query.contains("id=\(counter)&") || query.hasSuffix("id=\(counter)")
        }.count
    }
}

/// The tools' services over the simulator and a history database of the test's own.
struct TestServices: RunServices {
    let baseURL: String
    let databasePath: String
    let now: @Sendable () -> Date
    var token = "demo-token"
    var rasterizer: any ChartRasterizer = RSVGConvertRasterizer(environment: ProcessInfo.processInfo.environment)
    var settings = AlertSettings()
    /// The client's transport and its retry waits (a test of an API that went away records them).
    var transport: any HTTPTransport = CurlTransport()
    var sleep: @Sendable (Double) async throws -> Void = { try await Task.sleep(nanoseconds: UInt64($0 * 1e9)) }

    init(_ simulator: ToolSimulator, database: String, now: Date) {
        baseURL = simulator.baseURL
        databasePath = database
        self.now = { now }
    }

    func client() throws -> MetrikaClient {
        MetrikaClient(
            baseURL: URL(string: baseURL)!, token: token, transport: transport, requestTimeout: 10, sleep: sleep,
            now: now)
    }

    func historyLoader(offline: Bool) throws -> HistoryLoader {
        try historyLoader(offline: offline, unsettledDays: 2)
    }

    func historyLoader(offline: Bool, unsettledDays: Int) throws -> HistoryLoader {
        HistoryLoader(
            store: try history(), client: offline ? nil : try client(), now: now, unsettledDays: unsettledDays)
    }

    func history() throws -> HistoryStore { try HistoryStore(path: databasePath) }

    func defaultCounters() -> (ids: [String], source: String)? { nil }

    /// The tools never reach Telegram.
    func telegramBot() throws -> TelegramBot { throw CancellationError() }

    func alertSettings() throws -> AlertSettings { settings }

    /// As the CLI's session serves them: the alert run's reading of counters, its give-up included.
    func alertCounters(_ ids: [Int], loader: HistoryLoader) async throws -> (
        counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)]
    ) {
        try await AlertRun(loader: loader, settings: settings, activity: ToolActivity(now: now)).counters(ids)
    }

    var secrets: [String] { [token] }
}

/// Progress as a call reports it.
final class RecordedProgress: MCPCallActivity {
    let reports = Mutex<[Double]>([])
    func progress(_ done: Double, total: Double?, message: String?) { reports.withLock { $0.append(done) } }
}

/// A temporary directory, removed when the value goes.
final class TemporaryFolder: Sendable {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "metrika-mcp-tools-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension JSONValue {
    /// A member of an object, or an element of an array by its index.
    subscript(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    var items: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    var text: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

extension MCPToolResult {
    /// The text blocks, joined.
    var text: String {
        content.compactMap { if case .text(let text) = $0 { return text } else { return nil } }.joined(separator: "\n")
    }
}

func ints(_ values: [Int]) -> JSONValue { .array(values.map { .number(Double($0)) }) }
func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
