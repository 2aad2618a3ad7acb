import Foundation
import MetrikaAPI
import MetrikaRender
import MetrikaTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the built executables are: next to the test bundle in the build directory, or
/// `METRIKA_BIN_DIR` when set.
enum Binaries {
    static var directory: URL {
        if let dir = ProcessInfo.processInfo.environment["METRIKA_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        var url = Bundle.main.bundleURL
        // Linux: .build/debug/metrikaPackageTests.xctest is a file in the products directory.
        for _ in 0..<3 {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("metrika").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static var metrika: String { directory.appendingPathComponent("metrika").path }
    static var fakeAPI: String { directory.appendingPathComponent("metrika-fake-api").path }

    /// The repository root (for Fixtures/ and scripts).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }
}

/// What a finished process left: exit code and everything it printed.
struct ProcessResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when the process was ended by a signal rather than exiting.
    var signaled: Bool

    /// Lines of stdout; CRLF (a single Character in Swift) counts as one line end.
    var stdoutLines: [String] {
        stdout.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).map(String.init)
    }
}

/// Runs a program to completion, draining stdout and stderr concurrently before waiting (so a
/// chatty child can never block on a full pipe), with a hard time limit.
func runProcess(
    _ path: String, _ arguments: [String], environment: [String: String], stdin: String? = nil, timeout: Double = 60
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment
    let outPipe = Pipe()
    let errPipe = Pipe()
    let inPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    process.standardInput = inPipe
    let exited = exitSignal(of: process)
    try process.run()
    // A child that exits before it reads its input (a refused config) closes the pipe: the write then
    // fails with EPIPE, which `write(_:)` turns into a crash of the whole test process (`try!`).
    if let stdin { try? inPipe.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
    try? inPipe.fileHandleForWriting.close()
    let group = DispatchGroup()
    let box = OutputBox()
    group.enter()
    onOwnThread {
        box.setOut(outPipe.fileHandleForReading.readDataToEndOfFile())
        group.leave()
    }
    group.enter()
    onOwnThread {
        box.setErr(errPipe.fileHandleForReading.readDataToEndOfFile())
        group.leave()
    }
    if exited.wait(timeout: .now() + timeout) == .timedOut {
        process.terminate()
        if exited.wait(timeout: .now() + 0.2) == .timedOut { kill(process.processIdentifier, SIGKILL) }
    }
    process.waitUntilExit()
    group.wait()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: box.out, as: UTF8.self),
        stderr: String(decoding: box.err, as: UTF8.self),
        signaled: process.terminationReason == .uncaughtSignal
    )
}

/// Runs `body` on a thread of its own: for a read that blocks until a child ends. Never on Dispatch's
/// global queue: on Linux it runs about one thread a core and adds more only slowly while they block,
/// and every simulator's drain holds one for good. Reads of a killed bot's output queued there behind
/// them waited 7.4 s for a thread, the bot long gone (the long-running bot's drill: every round's
/// wait ended in the same instant).
func onOwnThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 256 << 10
    thread.start()
}

/// A semaphore signalled when `process` exits; set it up before `run()`. Waiting on it wakes at the
/// exit itself, where a loop of `isRunning` checks and sleeps would wake late and often.
func exitSignal(of process: Process) -> DispatchSemaphore {
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    return exited
}

final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var out = Data()
    private(set) var err = Data()
    func setOut(_ data: Data) {
        lock.lock()
        out = data
        lock.unlock()
    }
    func setErr(_ data: Data) {
        lock.lock()
        err = data
        lock.unlock()
    }
}

/// A running `metrika-fake-api` on a free loopback port, stopped when the value is released (or by `stop()`).
final class FakeAPI: @unchecked Sendable {
    let process: Process
    let port: Int
    /// The simulator's frozen clock (`--now`): the test's own, else `TestClock.now`.
    let now: String
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the simulator with a fixture set (`default` or `many`) and extra arguments. Its clock is
    /// frozen at `TestClock.now` unless the arguments give `--now`; `--parent-pid` ends it with this
    /// process, even one killed with SIGKILL.
    init(fixtures: String = "default", arguments: [String] = []) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.fakeAPI)
        let fixturesDir = Binaries.repositoryRoot.appendingPathComponent("Fixtures").appendingPathComponent(fixtures)
            .path
        let pinned =
            arguments.firstIndex(of: "--now").map { arguments[$0 + 1] }
            ?? arguments.first { $0.hasPrefix("--now=") }.map { String($0.dropFirst("--now=".count)) }
        now = pinned ?? TestClock.now
        process.arguments =
            ["--port", "0", "--fixtures", fixturesDir] + arguments
            + (pinned == nil ? ["--now", TestClock.now] : []) + ["--parent-pid", String(getpid())]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        ChildProcesses.register(process.processIdentifier)
        // The first line is `listening on http://127.0.0.1:PORT`.
        port = try readAnnouncedPort(of: process, from: out, name: "metrika-fake-api")
    }

    deinit { stop() }

    func stop() {
        ChildProcesses.end(process)
    }

    /// A simulator for a suite's tests to share, stopped at the suite's end (`.stops(…)`).
    static func shared(fixtures: String = "default", arguments: [String] = []) -> SuiteFixture<FakeAPI> {
        SuiteFixture(start: { try FakeAPI(fixtures: fixtures, arguments: arguments) }, stop: { $0.stop() })
    }

    /// Queues a fault (see docs/simulator.md): e.g. `["kind": "backend_error", "count": 3]`.
    func inject(_ fault: [String: Any]) throws {
        _ = try control("POST", "/__sim/faults", body: try JSONSerialization.data(withJSONObject: fault))
    }

    /// Clears the request log and the fault queue.
    func reset() throws { _ = try control("POST", "/__sim/reset", body: Data()) }

    /// Moves the simulator's clock to `now` (ISO 8601); the fixtures' days stay where they were.
    func setClock(_ now: String) throws {
        _ = try control("POST", "/__sim/clock", body: Data(#"{"now": "\(now)"}"#.utf8))
    }

    /// The request log: one entry per API request (control requests excluded).
    func requests() throws -> [[String: Any]] {
        let data = try control("GET", "/__sim/log", body: nil)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["requests"] as? [[String: Any]] ?? []
    }

    /// Requests whose path starts with a prefix.
    func requestCount(pathPrefix: String = "/") throws -> Int {
        try requests().filter { ($0["path"] as? String ?? "").hasPrefix(pathPrefix) }.count
    }

    private func control(_ method: String, _ path: String, body: Data?) throws -> Data {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return try blockingRequest(request)
    }

    /// A `GET` on the simulator's API with a token, the body as data (to compare metrika with the API).
    func apiGET(_ pathAndQuery: String, token: String = demoToken) throws -> Data {
        var request = URLRequest(url: URL(string: baseURL + pathAndQuery)!)
        request.setValue("OAuth \(token)", forHTTPHeaderField: "Authorization")
        return try blockingRequest(request)
    }
}

/// Reads a child's first stdout line, `… http://127.0.0.1:PORT` or `…:PORT`, and returns the port;
/// then keeps draining stdout so the child never blocks on a full pipe. Terminates it on failure.
func readAnnouncedPort(of process: Process, from pipe: Pipe, name: String) throws -> Int {
    var line = Data()
    let handle = pipe.fileHandleForReading
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
        let byte = handle.readData(ofLength: 1)
        if byte.isEmpty || byte == Data("\n".utf8) { break }
        line.append(byte)
    }
    let text = String(decoding: line, as: UTF8.self)
    guard let portText = text.split(separator: ":").last, let port = Int(portText) else {
        process.terminate()
        throw SimpleError("\(name) did not announce its port (got '\(text)')")
    }
    onOwnThread { _ = handle.readDataToEndOfFile() }
    return port
}

/// A blocking HTTP exchange with URLSession, for test plumbing (control endpoints, direct API reads).
func blockingRequest(_ request: URLRequest) throws -> Data {
    let box = ResultBox()
    let semaphore = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: request) { data, _, error in
        box.set(data, error)
        semaphore.signal()
    }.resume()
    semaphore.wait()
    if let error = box.error { throw error }
    return box.data ?? Data()
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var data: Data?
    private(set) var error: (any Error)?
    func set(_ data: Data?, _ error: (any Error)?) {
        lock.lock()
        self.data = data
        self.error = error
        lock.unlock()
    }
}

struct SimpleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A scratch directory removed at deinit.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "metrika-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The token every end-to-end test uses against the simulator; tests grep outputs for it.
let demoToken = "demo-token"

/// A clean environment for running `metrika` against a simulator: no user config leaks in.
/// `retryScale` (`METRIKA_TEST_RETRY_SCALE`, test-only, docs/reliability.md) is for the tests that
/// inject faults the binary retries: it sleeps that fraction of each wait of the production retry
/// policy, whose attempts, caps and messages are unchanged. Other tests keep the real waits, which
/// also give a loaded machine's simulator time to catch up when a request is slow by accident.
func metrikaEnvironment(
    api: FakeAPI?, home: String, token: String? = demoToken, retryScale: Double? = nil, extra: [String: String] = [:]
) -> [String: String] {
    var environment: [String: String] = [
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "XDG_CONFIG_HOME": home + "/config",
        "XDG_DATA_HOME": home + "/data",
        "LC_ALL": "C",
        "METRIKA_TIMEOUT": "5",
        // The simulator's clock, so that both agree on today (an explicit `extra` METRIKA_NOW wins).
        "METRIKA_NOW": api?.now ?? TestClock.now
    ]
    if let retryScale { environment["METRIKA_TEST_RETRY_SCALE"] = String(retryScale) }
    if let api {
        environment["METRIKA_API_URL"] = api.baseURL
        environment["METRIKA_OAUTH_URL"] = api.baseURL
    }
    if let token { environment["METRIKA_TOKEN"] = token }
    for (key, value) in extra { environment[key] = value }
    return environment
}

/// Runs the built `metrika` with arguments in an environment.
func metrika(_ arguments: [String], environment: [String: String], stdin: String? = nil, timeout: Double = 120) throws
    -> ProcessResult
{
    try runProcess(Binaries.metrika, arguments, environment: environment, stdin: stdin, timeout: timeout)
}
