import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why the server could not start.
package struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    package let operation: String
    package let code: Int32
    package var description: String { "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))" }
}

/// A small HTTP/1.1 server on POSIX sockets, bound to 127.0.0.1 only.
///
/// One thread accepts; each connection gets its own thread, reads requests with Content-Length or
/// chunked bodies, keeps the connection alive between them, and answers anything it cannot read
/// with 400 and a close. The handler is synchronous: it runs on the connection's thread, so a slow
/// answer (the `delay` fault) holds up only its own connection.
package final class HTTPServer: Sendable {
    /// Produces the response for one request.
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    private struct State {
        var listeningSocket: Int32 = -1
        var running = false
        var connections: Set<Int32> = []
        var port: UInt16 = 0
    }

    private let handler: Handler
    private let state = Mutex(State())
    private let acceptLoopFinished = DispatchSemaphore(value: 0)
    /// How long an idle keep-alive connection stays open.
    private let idleTimeoutMilliseconds: Int32

    /// Creates a server that answers with `handler`; call `start(port:)` to listen.
    package init(idleTimeoutSeconds: Int = 60, handler: @escaping Handler) {
        self.handler = handler
        self.idleTimeoutMilliseconds = Int32(idleTimeoutSeconds * 1000)
    }

    deinit {
        stop()
    }

    /// The port the server listens on (0 before `start`).
    package var port: UInt16 { state.withLock { $0.port } }

    /// Binds 127.0.0.1:`port` (0 picks a free port), starts accepting, and returns the bound port.
    @discardableResult
    package func start(port: UInt16) throws -> UInt16 {
        ignoreBrokenPipes()
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw HTTPServerError(operation: "socket", code: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))

        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError(operation: "bind to 127.0.0.1:\(port)", code: code)
        }
        guard listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError(operation: "listen", code: code)
        }
        var boundAddress = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &boundAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let actualPort = UInt16(bigEndian: boundAddress.sin_port)
        state.withLock {
            $0.listeningSocket = fd
            $0.running = true
            $0.port = actualPort
        }
        let thread = Thread { [self] in acceptLoop(fd) }
        thread.name = "metrika-fake-api accept"
        thread.start()
        return actualPort
    }

    /// Stops accepting, closes every open connection, and waits briefly for the accept loop.
    package func stop() {
        let (wasRunning, connections) = state.withLock { s -> (Bool, Set<Int32>) in
            let wasRunning = s.running
            s.running = false
            return (wasRunning, s.connections)
        }
        guard wasRunning else { return }
        for fd in connections {
            shutdown(fd, Int32(SHUT_RDWR))
        }
        _ = acceptLoopFinished.wait(timeout: .now() + 2)
    }

    // MARK: - Accepting

    private var isRunning: Bool { state.withLock { $0.running } }

    private func acceptLoop(_ listeningSocket: Int32) {
        defer {
            close(listeningSocket)
            acceptLoopFinished.signal()
        }
        while isRunning {
            var poller = pollfd(fd: listeningSocket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            guard ready > 0 else { continue }
            let client = accept(listeningSocket, nil, nil)
            guard client >= 0 else { continue }
            #if canImport(Darwin)
                var yes: Int32 = 1
                setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let accepted = state.withLock { s -> Bool in
                guard s.running else { return false }
                s.connections.insert(client)
                return true
            }
            guard accepted else {
                close(client)
                break
            }
            let thread = Thread { [self] in serve(client) }
            thread.name = "metrika-fake-api connection"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    // MARK: - One connection

    private func serve(_ fd: Int32) {
        defer {
            state.withLock { _ = $0.connections.remove(fd) }
            close(fd)
        }
        var buffer: [UInt8] = []
        var sentContinue = false
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while isRunning {
            while let first = buffer.first, first == 13 || first == 10 {
                buffer.removeFirst()
            }
            if !buffer.isEmpty {
                switch HTTPRequestParser.parse(buffer) {
                case .invalid(let status, let reason):
                    var response = HTTPResponse(
                        status: status, contentType: "text/plain; charset=utf-8", body: Array("\(reason)\n".utf8))
                    response.closesConnection = true
                    _ = write(response, to: fd, keepAlive: false)
                    return
                case .request(let request, let consumed, let keepAlive):
                    buffer.removeFirst(consumed)
                    sentContinue = false
                    let response = handler(request)
                    let open = write(response, to: fd, keepAlive: keepAlive, headOnly: request.method == "HEAD")
                    if !open || !keepAlive || response.closesConnection { return }
                    continue
                case .needMore(let expectsContinue):
                    if expectsContinue && !sentContinue {
                        sentContinue = true
                        guard sendAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: fd) else { return }
                    }
                }
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, idleTimeoutMilliseconds)
            guard ready > 0 else { return }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes the response; returns whether the connection is still usable.
    private func write(_ response: HTTPResponse, to fd: Int32, keepAlive: Bool, headOnly: Bool = false) -> Bool {
        var bytes = response.head(keepAlive: keepAlive)
        if headOnly { return sendAll(bytes, to: fd) }
        if let produce = response.streamedBody {
            guard sendAll(bytes, to: fd) else { return false }
            let finished = produce { chunk in
                guard !chunk.isEmpty else { return true }
                var framed = Array((String(chunk.count, radix: 16) + "\r\n").utf8)
                framed.append(contentsOf: chunk)
                framed.append(contentsOf: [13, 10])
                return self.sendAll(framed, to: fd)
            }
            guard finished else {
                shutdown(fd, Int32(SHUT_RDWR))
                return false
            }
            return sendAll(Array("0\r\n\r\n".utf8), to: fd)
        }
        if let cut = response.truncatedBodyLength {
            bytes.append(contentsOf: response.body.prefix(max(0, cut)))
            _ = sendAll(bytes, to: fd)
            shutdown(fd, Int32(SHUT_RDWR))
            return false
        }
        bytes.append(contentsOf: response.body)
        return sendAll(bytes, to: fd)
    }

    private func sendAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, flags)
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
