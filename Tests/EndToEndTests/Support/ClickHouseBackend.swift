import Foundation
import MetrikaTestSupport
import Testing

/// A ClickHouse the warehouse tests load into: what they need of either server.
protocol ClickHouseBackend: AnyObject, Sendable {
    var url: String { get }
    var httpPort: Int { get }
    /// Runs a statement as the test user; the answer's trailing newline removed.
    @discardableResult func query(_ sql: String) throws -> String
    /// Drops what earlier tests made.
    func reset() throws
}

extension ClickHouseServer: ClickHouseBackend {}
extension ChdbServer: ClickHouseBackend {}

/// The ClickHouse versions every warehouse test runs against: Debian's clickhouse-server 18.16 (2018,
/// the oldest metrika supports) and today's engine (chdb-core, ClickHouse 26.x, behind
/// scripts/chdb-http). Each is started once per test process, on first use, and reset before each
/// test. A server that is not installed skips the test, naming the package to install; one that is
/// installed but does not start fails it (a test that checked nothing must not pass).
enum ClickHouseKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case server18 = "clickhouse-server 18.16"
    case chdb = "chdb (ClickHouse 26)"

    var testDescription: String { rawValue }

    /// The credentials the backend's test user has.
    var user: String { self == .server18 ? ClickHouseServer.user : ChdbServer.user }
    var password: String { self == .server18 ? ClickHouseServer.password : ChdbServer.password }

    private static let server18Started = Result { try ClickHouseServer() }
    private static let chdbStarted = Result { try ChdbServer() }

    /// The running, emptied server, or the test is skipped saying why.
    func start(sourceLocation: SourceLocation = #_sourceLocation) throws -> any ClickHouseBackend {
        switch self {
        case .server18:
            guard ClickHouseServer.installed else {
                try Test.cancel(
                    "skipped: clickhouse-server is not installed (apt-get install clickhouse-server, or run scripts/setup)",
                    sourceLocation: sourceLocation)
            }
            switch Self.server18Started {
            case .success(let server):
                try server.reset()
                return server
            case .failure(let error):
                // Installed but not starting is a broken peer, not a missing one: the test fails.
                throw error
            }
        case .chdb:
            return try ChdbServer.require(Self.chdbStarted, sourceLocation: sourceLocation)
        }
    }
}

/// Runs `metrika logs …` with the Logs API's part downloads slowed (250 ms each) and kills it with
/// SIGKILL once it has downloaded `parts` parts (or after 30 s): a load cut between parts, for the
/// tests that resume one. The API's request log counts the downloads of this run only after a reset.
/// Returns the killed process's id (what it left behind is named after it).
@discardableResult
func killLogsMidLoad(_ arguments: [String], environment: [String: String], api: FakeAPI, afterParts parts: Int = 3)
    throws -> Int32
{
    try api.inject([
        "kind": "delay", "delay_ms": 250, "count": 1000, "path_prefix": "/management/v1/counter/1001/logrequest/"
    ])
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binaries.metrika)
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline, process.isRunning {
        if try api.requests().filter({ ($0["path"] as? String ?? "").hasSuffix("/download") }).count >= parts { break }
        usleep(50_000)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    return process.processIdentifier
}
