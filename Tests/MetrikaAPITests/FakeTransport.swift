import Foundation

@testable import MetrikaAPI

/// A scripted transport: answers requests from a queue (or a handler) and records what was sent.
final class FakeTransport: HTTPTransport, @unchecked Sendable {
    enum Step {
        case respond(Int, String, [String: String] = [:])
        case fail(TransportError)
    }

    private let lock = NSLock()
    private var steps: [Step]
    private let handler: (@Sendable (HTTPRequest) -> Step)?
    private(set) var requests: [HTTPRequest] = []

    init(_ steps: [Step]) {
        self.steps = steps
        self.handler = nil
    }

    init(handler: @escaping @Sendable (HTTPRequest) -> Step) {
        self.steps = []
        self.handler = handler
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let step = next(request)
        switch step {
        case .respond(let status, let body, let headers):
            return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        case .fail(let error):
            throw error
        }
    }

    private func next(_ request: HTTPRequest) -> Step {
        lock.lock()
        defer { lock.unlock() }
        requests.append(request)
        if let handler { return handler(request) }
        if steps.isEmpty { return .respond(500, "{}") }
        return steps.removeFirst()
    }

    var sentRequests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }
}

/// Records the waits a client asked for instead of sleeping, and moves a fake clock forward.
final class FakeClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_790_000_000)
    private(set) var sleeps: [Double] = []

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func sleep(_ seconds: Double) {
        lock.lock()
        sleeps.append(seconds)
        current = current.addingTimeInterval(seconds)
        lock.unlock()
    }

    var recordedSleeps: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return sleeps
    }
}

func makeClient(
    _ transport: FakeTransport, clock: FakeClock = FakeClock(), policy: RetryPolicy = .standard, random: Double = 0.5
) -> MetrikaClient {
    MetrikaClient(
        baseURL: URL(string: "https://api.example.test")!, token: "secret-token-123", transport: transport,
        retryPolicy: policy, requestTimeout: 5,
        sleep: { clock.sleep($0) }, random: { random }, now: { clock.now })
}

func errorBody(_ type: String, _ code: Int, _ message: String) -> String {
    #"{"errors":[{"error_type":"\#(type)","message":"\#(message)"}],"code":\#(code),"message":"\#(message)"}"#
}
