import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One request as the listener hands it on: method, path, headers (lower-cased names), query
/// arguments and the whole body (at most `HTTPListener.maxBodyBytes`).
package struct ListenerRequest: Sendable {
    package var method: String
    package var path: String
    package var headers: [String: String]
    package var query: [String: String]
    package var body: [UInt8]

    package init(
        method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
    }
}

/// An answer: a whole body, or a stream (server-sent events) written while the work goes on.
package struct ListenerResponse: Sendable {
    package var status: Int
    package var headers: [(String, String)]
    package var body: Body

    package enum Body: Sendable {
        case bytes([UInt8])
        case stream(ResponseStream)
    }

    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    package init(status: Int, headers: [(String, String)], stream: ResponseStream) {
        self.status = status
        self.headers = headers
        self.body = .stream(stream)
    }

    /// A JSON body.
    package static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> ListenerResponse {
        ListenerResponse(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }
}

/// The body of a streamed answer: chunks written by the work, read by the connection's thread (which
/// may block: one thread per connection); `finish` ends it. Written chunks wait unbounded in memory
/// only as long as the client reads slower than a tool's few notifications come.
package final class ResponseStream: Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        var offset = 0
        var finished = false
    }
    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    package init() {}

    package func write(_ text: String) {
        let appended = state.withLock { state -> Bool in
            if state.finished { return false }
            state.chunks.append(Array(text.utf8))
            return true
        }
        if appended { ready.signal() }
    }

    package func finish() {
        let changed = state.withLock { state -> Bool in
            if state.finished { return false }
            state.finished = true
            return true
        }
        if changed { ready.signal() }
    }

    /// Copies what is written into `buffer` (blocking until something is, or the stream ends): the
    /// count copied, 0 for the end.
    fileprivate func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let outcome = state.withLock { state -> Int? in
                if let first = state.chunks.first {
                    let count = min(buffer.count, first.count - state.offset)
                    first.withUnsafeBytes { bytes in
                        buffer.baseAddress!.copyMemory(
                            from: bytes.baseAddress! + state.offset, byteCount: count)
                    }
                    state.offset += count
                    if state.offset == first.count {
                        state.chunks.removeFirst()
                        state.offset = 0
                    }
                    return count
                }
                return state.finished ? 0 : nil
            }
            if let outcome { return outcome }
            ready.wait()
        }
    }
}

/// An HTTP/1.1 server on GNU libmicrohttpd, one thread per connection: each whole request goes to
/// `quick` on the connection's thread (an answer ready at once: a kept one), else to `handle` (an
/// async function run as a Task while the connection's thread waits), its answer back.
/// Limits: bodies of at most 1 MB (413), `connectionLimit` connections, a connection idle for
/// `timeoutSeconds` (reading its headers too) is closed, a request's headers fit 32 KB.
package final class HTTPListener: @unchecked Sendable {
    package static let maxBodyBytes = 1 << 20
    package typealias Handler = @Sendable (ListenerRequest) async -> ListenerResponse
    /// An answer ready at once, given on the connection's thread (no task, no wait); nil: `handle`'s.
    package typealias QuickHandler = @Sendable (ListenerRequest) -> ListenerResponse?

    private let handle: Handler
    private let quick: QuickHandler?
    private var server = metrika_http_server()
    private var daemon: OpaquePointer?
    /// The requests at work, so that `stop` can cancel them (their threads then end).
    private let atWork = Mutex<[UInt64: Task<Void, Never>]>([:])
    private let nextID = Atomic<UInt64>(0)
    /// The port bound (the system's choice for port 0).
    package private(set) var port = 0

    /// Starts listening on `host` (an IPv4 or IPv6 address) and `port`; throws when it cannot.
    package init(
        host: String, port: Int, connectionLimit: Int = 100, timeoutSeconds: Int = 30, quick: QuickHandler? = nil,
        handle: @escaping Handler
    ) throws {
        self.handle = handle
        self.quick = quick
        server.handler = { context, connection, method, url, body, length, tooLarge in
            let listener = Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue()
            return listener.answer(
                connection: connection!, method: String(cString: method!), url: String(cString: url!),
                body: body.map { UnsafeRawBufferPointer(start: $0, count: length) }, tooLarge: tooLarge != 0)
        }
        server.max_body = Self.maxBodyBytes
        server.context = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = try Self.withAddress(host: host, port: port) { address, ipv6 in
            withUnsafeMutablePointer(to: &server) { server in
                metrika_http_start(
                    server, address, ipv6 ? 1 : 0, UInt32(connectionLimit), UInt32(timeoutSeconds), 32 * 1024)
            }
        }
        guard let started else {
            throw ListenError("cannot listen on \(host):\(port) (in use, or not an address of this machine)")
        }
        daemon = started
        self.port = Int(metrika_http_port(started))
    }

    /// Stops accepting, cancels the requests at work and waits for every connection's thread to end.
    package func stop() {
        guard let daemon else { return }
        self.daemon = nil
        _ = MHD_quiesce_daemon(daemon)
        for task in atWork.withLock({ Array($0.values) }) { task.cancel() }
        MHD_stop_daemon(daemon)
    }

    deinit { stop() }

    private static func withAddress<T>(
        host: String, port: Int, _ body: (UnsafePointer<sockaddr>, Bool) throws -> T
    ) throws -> T {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = in_port_t(UInt16(port).bigEndian)
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            return try withUnsafePointer(to: &v4) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, false) }
            }
        }
        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = in_port_t(UInt16(port).bigEndian)
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            return try withUnsafePointer(to: &v6) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, true) }
            }
        }
        throw ListenError("\(host) is not an IP address (give 127.0.0.1, ::1 or an address of this machine)")
    }

    // MARK: - One request, on its connection's thread

    private func answer(
        connection: OpaquePointer, method: String, url: String, body: UnsafeRawBufferPointer?, tooLarge: Bool
    ) -> MHD_Result {
        if tooLarge {
            return queue(
                .json(413, #"{"error":"the request body is larger than 1 MB"}"#, headers: [("Connection", "close")]),
                on: connection)
        }
        let request = ListenerRequest(
            method: method, path: url, headers: Self.values(connection, arguments: false),
            query: Self.values(connection, arguments: true),
            body: body.map { Array($0) } ?? [])
        if let quick, let response = quick(request) { return queue(response, on: connection) }
        let outcome = Mutex<ListenerResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        let id = nextID.add(1, ordering: .relaxed).newValue
        let handle = self.handle
        let task = Task {
            let response = await handle(request)
            outcome.withLock { $0 = response }
            done.signal()
        }
        atWork.withLock { $0[id] = task }
        done.wait()
        atWork.withLock { _ = $0.removeValue(forKey: id) }
        guard let response = outcome.withLock({ $0 }) else { return metrika_http_no() }
        return queue(response, on: connection)
    }

    private func queue(_ response: ListenerResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in metrika_http_response_copy(buffer.baseAddress, buffer.count) }
        case .stream(let stream):
            let retained = Unmanaged.passRetained(stream).toOpaque()
            made = MHD_create_response_from_callback(
                metrika_http_size_unknown(), 4096,
                { context, _, buffer, size in
                    let stream = Unmanaged<ResponseStream>.fromOpaque(context!).takeUnretainedValue()
                    let count = stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size))
                    return count == 0 ? metrika_http_end_of_stream() : count
                }, retained,
                { context in Unmanaged<ResponseStream>.fromOpaque(context!).release() })
            if made == nil { Unmanaged<ResponseStream>.fromOpaque(retained).release() }
        }
        guard let made else { return metrika_http_no() }
        for (name, value) in response.headers { MHD_add_response_header(made, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return result
    }

    /// The request's headers or query arguments (the last of a repeated name).
    private static func values(_ connection: OpaquePointer, arguments: Bool) -> [String: String] {
        let lowercased = !arguments
        final class Box {
            var values: [String: String] = [:]
            let lowercased: Bool
            init(lowercased: Bool) { self.lowercased = lowercased }
        }
        let box = Box(lowercased: lowercased)
        withExtendedLifetime(box) {
            _ = metrika_http_values(
                connection, arguments ? 1 : 0,
                { context, _, key, value in
                    let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                    if let key {
                        let name = String(cString: key)
                        box.values[box.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
                    }
                    return metrika_http_yes()
                }, Unmanaged.passUnretained(box).toOpaque())
        }
        return box.values
    }
}

/// The listener could not start.
package struct ListenError: Error, Sendable {
    package var message: String
    package init(_ message: String) { self.message = message }
}
