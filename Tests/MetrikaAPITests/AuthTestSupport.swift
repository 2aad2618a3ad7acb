import Foundation

@testable import MetrikaAPI

/// A scripted `HTTPTransport`: answers each request with `respond` and records what was sent.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [HTTPRequest] = []
    private let respond: @Sendable (HTTPRequest, Int) throws -> HTTPResponse

    /// `respond` gets the request and its 0-based index among all requests sent so far.
    init(_ respond: @escaping @Sendable (HTTPRequest, Int) throws -> HTTPResponse) {
        self.respond = respond
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index: Int = lock.withLock {
            sent.append(request)
            return sent.count - 1
        }
        return try respond(request, index)
    }

    var requests: [HTTPRequest] { lock.withLock { sent } }

    /// The form fields of request `index`, decoded.
    func form(_ index: Int) -> [String: String] {
        let body = String(decoding: requests[index].body ?? Data(), as: UTF8.self)
        return Dictionary(FormEncoding.decode(body), uniquingKeysWith: { first, _ in first })
    }
}

/// A clock that only moves when something sleeps on it.
final class AuthClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var slept: [Double] = []

    init(_ start: Date = Date(timeIntervalSince1970: 1_781_524_800)) { // 2026-06-15T12:00:00Z
        current = start
    }

    var now: @Sendable () -> Date { { self.lock.withLock { self.current } } }
    var sleep: @Sendable (Double) async throws -> Void {
        { seconds in
            try Task.checkCancellation()
            self.lock.withLock {
                self.slept.append(seconds)
                self.current = self.current.addingTimeInterval(seconds)
            }
        }
    }

    var sleeps: [Double] { lock.withLock { slept } }
    func advance(_ seconds: Double) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// Collects lines (warnings, logs).
final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

func json(_ status: Int, _ text: String) -> HTTPResponse {
    HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
}

/// A scratch directory for one test, removed at deinit.
final class AuthScratch: @unchecked Sendable {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "metrika-auth-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The permission bits of a file.
    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

let oauthBase = URL(string: "http://127.0.0.1:9/")!
let demoCredentials = ClientCredentials(clientID: "demo-client", clientSecret: "demo-secret", source: "test")
