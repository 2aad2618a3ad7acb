import Foundation
import Testing

@testable import MetrikaSimulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The repository's Fixtures directory, found from this file's location.
let fixturesRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent() // Support
    .deletingLastPathComponent() // SimulatorTests
    .deletingLastPathComponent() // Tests
    .deletingLastPathComponent() // repository root
    .appendingPathComponent("Fixtures", isDirectory: true)

/// The instant every test freezes the simulator's clock at: Monday 2026-06-15, 15:00 in Moscow.
let frozenNow = SimulatorOptions.parseInstant("2026-06-15T12:00:00Z")!

/// One answer as a test sees it.
struct Reply: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed by Foundation's own JSON reader (not the simulator's), as a dictionary.
    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        return try #require(object as? [String: Any], "not a JSON object: \(text)")
    }

    /// The `error_type` of the first item of a Metrika error body.
    var errorType: String? {
        let body = try? json()
        return (body?["errors"] as? [[String: Any]])?.first?["error_type"] as? String
    }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.key.lowercased() == name.lowercased() })?.value
    }
}

/// A simulator on a loopback port, talked to with URLSession as a client would.
final class SimulatorHarness: Sendable {
    let server: HTTPServer
    let simulator: Simulator
    let baseURL: URL
    let session: URLSession
    let port: UInt16

    init(
        fixtures: String = "default", now: Date? = frozenNow, deviceInterval: Int = 1, devicePendingPolls: Int = 2,
        logsQuirks: Set<LogsQuirk> = [], quotas: Bool = false
    ) throws {
        var options = SimulatorOptions(
            fixturesDirectory: fixturesRoot.appendingPathComponent(fixtures, isDirectory: true),
            now: now, deviceInterval: deviceInterval, devicePendingPolls: devicePendingPolls)
        options.logsQuirks = logsQuirks
        options.quotas = quotas
        let simulator = try Simulator(options: options)
        self.simulator = simulator
        server = HTTPServer(idleTimeoutSeconds: 10, handler: { simulator.handle($0) })
        port = try server.start(port: 0)
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.httpMaximumConnectionsPerHost = 16
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.invalidateAndCancel()
        server.stop()
    }

    func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery)!
    }

    /// `GET pathAndQuery` with `Authorization: OAuth token` when a token is given.
    func get(_ pathAndQuery: String, token: String? = "demo-token", scheme: String = "OAuth") async throws -> Reply {
        var request = URLRequest(url: url(pathAndQuery))
        if let token { request.setValue("\(scheme) \(token)", forHTTPHeaderField: "Authorization") }
        return try await send(request)
    }

    /// `POST` with a raw body.
    func post(_ path: String, body: String, contentType: String = "application/json") async throws -> Reply {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        return try await send(request)
    }

    /// `POST` with a form body, as the OAuth endpoints take it.
    func postForm(_ path: String, _ fields: [(String, String)]) async throws -> Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
        return try await post(path, body: body, contentType: "application/x-www-form-urlencoded")
    }

    /// Queues a fault through the control API.
    func inject(_ spec: String) async throws {
        let reply = try await post("/__sim/faults", body: spec)
        #expect(reply.status == 200, "fault \(spec) refused: \(reply.text)")
    }

    /// The request log through the control API.
    func log() async throws -> [[String: Any]] {
        let reply = try await get("/__sim/log", token: nil)
        return try #require(try reply.json()["requests"] as? [[String: Any]])
    }

    func send(_ request: URLRequest) async throws -> Reply {
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            headers["\(key)"] = "\(value)"
        }
        return Reply(status: http.statusCode, headers: headers, body: data)
    }

    /// Sends raw bytes on a fresh socket and returns everything the server answers until it closes
    /// or goes quiet.
    func raw(_ bytes: [UInt8], quietMilliseconds: Int32 = 500) -> [UInt8] {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return [] }
        #if canImport(Darwin)
            _ = bytes.withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
        #else
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        #endif
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, quietMilliseconds) > 0 else { break }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return received
    }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}
