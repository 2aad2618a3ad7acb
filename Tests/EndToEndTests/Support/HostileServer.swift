import Foundation
import MetrikaAPI
import MetrikaRender

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A deliberately hostile HTTP server on 127.0.0.1 for the transport drills: it answers every request
/// the same way — a redirect, an endless body, a gzip bomb, a slow drip — or, as the target of a
/// redirect, a canned answer while recording whether a token or a body reached it.
///
/// Every mode is bounded by `maxBytes` and `maxSeconds`, so that a client without the guards under
/// test still ends (and the machine keeps its memory) when the test fails.
final class HostileServer: @unchecked Sendable {
    enum Mode: Sendable {
        /// `status` with `Location: location` and a small JSON body.
        case redirect(status: Int, location: String)
        /// 200, chunked, an endless JSON-looking body.
        case endlessChunked
        /// 200 with `Content-Encoding: gzip`: a deflate stream of zeros, ~159× smaller than what it expands to.
        case gzipBomb
        /// 200 with a large Content-Length, then one byte every `interval` seconds.
        case drip(interval: Double)
        /// `status` with `body` (JSON): the innocent-looking target of a redirect.
        case answer(status: Int, body: String)
        /// These bytes as the whole answer, status line and headers included (broken HTTP on purpose).
        case raw([UInt8])
    }

    /// What one request carried (never the header's value).
    struct Seen: Sendable {
        var method: String
        var path: String
        var hasAuthorization: Bool
        var bodyBytes: Int
    }

    let mode: Mode
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let maxBytes: Int
    private let maxSeconds: Double
    private let lock = NSLock()
    private var seen: [Seen] = []
    private var stopped = false
    private var sentBodyBytes = 0
    private var clientLeft = false

    /// Whether a client closed its connection while the endless body was being sent.
    var clientHungUp: Bool {
        lock.lock()
        defer { lock.unlock() }
        return clientLeft
    }

    /// Body bytes the server has managed to hand to the kernel so far (endless and bomb modes).
    var bodyBytesSent: Int {
        lock.lock()
        defer { lock.unlock() }
        return sentBodyBytes
    }

    private func count(_ bytes: Int) {
        lock.lock()
        sentBodyBytes += bytes
        lock.unlock()
    }

    init(_ mode: Mode, maxBytes: Int = 256 << 20, maxSeconds: Double = 60) throws {
        self.mode = mode
        self.maxBytes = maxBytes
        self.maxSeconds = maxSeconds
        signal(SIGPIPE, SIG_IGN)
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw SimpleError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw SimpleError("bind/listen on 127.0.0.1 failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        // Weak: the loop must not keep the server alive, so that dropping it (deinit) stops it.
        let thread = Thread { [weak self] in
            while let server = self, server.acceptOnce() {}
            close(fd)
        }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting (within 0.1 s, when the accept thread closes the socket); connections still
    /// open end at their next write or poll.
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// The requests served so far.
    var requests: [Seen] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// Waits up to 0.1 s for a connection and serves it on a thread of its own; false once stopped.
    private func acceptOnce() -> Bool {
        guard !isStopped else { return false }
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) > 0 else { return true }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return true }
        let thread = Thread { [self] in
            serve(client)
            close(client)
        }
        thread.start()
        return true
    }

    // MARK: - One request per connection

    private func serve(_ fd: Int32) {
        guard let request = readRequest(fd) else { return }
        lock.lock()
        seen.append(request)
        lock.unlock()
        let started = Date()
        switch mode {
        case .redirect(let status, let location):
            let body = #"{"errors":[{"error_type":"moved","message":"moved"}],"code":\#(status),"message":"moved"}"#
            _ = send(
                fd,
                "HTTP/1.1 \(status) Redirect\r\nLocation: \(location)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
        case .raw(let bytes):
            _ = sendBytes(fd, bytes)
        case .answer(let status, let body):
            _ = send(
                fd,
                "HTTP/1.1 \(status) OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
        case .endlessChunked:
            guard
                send(
                    fd,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                )
            else { return }
            let piece = Array(String(repeating: #"{"id":1,"name":"x"},"#, count: 3200).utf8)
            let chunk = Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
            var sent = 0
            while sent < maxBytes, Date().timeIntervalSince(started) < maxSeconds {
                guard sendBytes(fd, chunk) else {
                    lock.lock()
                    clientLeft = true
                    lock.unlock()
                    return
                }
                sent += piece.count
                count(piece.count)
            }
            idle(fd, started: started)
        case .gzipBomb:
            guard
                send(
                    fd,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n"
                )
            else { return }
            let (prefix, period) = Self.deflatedZeros()
            guard sendBytes(fd, prefix) else { return }
            var block: [UInt8] = []
            for _ in 0..<(64 * 1024 / period.count) { block += period }
            var sent = prefix.count
            while sent < maxBytes, Date().timeIntervalSince(started) < maxSeconds, sendBytes(fd, block) {
                sent += block.count
            }
            idle(fd, started: started)
        case .drip(let interval):
            guard
                send(
                    fd,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n"
                )
            else { return }
            while Date().timeIntervalSince(started) < maxSeconds, !isStopped, sendBytes(fd, [UInt8(ascii: " ")]) {
                usleep(UInt32(interval * 1_000_000))
            }
        }
    }

    /// Holds the connection open, sending nothing, until the client leaves or time is up.
    private func idle(_ fd: Int32, started: Date) {
        var byte: UInt8 = 0
        while Date().timeIntervalSince(started) < maxSeconds, !isStopped {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 200) > 0, recv(fd, &byte, 1, 0) <= 0 { return }
        }
    }

    private func readRequest(_ fd: Int32) -> Seen? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) > 0 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4) where Array(buffer[index..<index + 4]) == terminator {
                    headEnd = index + 4
                    break
                }
            }
            if buffer.count > 1 << 20 { return nil }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        var contentLength = 0
        var authorization = false
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            if name == "authorization" { authorization = true }
            if name == "content-length" { contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0 }
        }
        var body = buffer.count - headEnd!
        while body < contentLength {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 5_000) > 0 else { break }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            body += count
        }
        return Seen(
            method: requestLine.first.map(String.init) ?? "", path: requestLine.count > 1 ? String(requestLine[1]) : "",
            hasAuthorization: authorization, bodyBytes: body)
    }

    private func send(_ fd: Int32, _ text: String) -> Bool { sendBytes(fd, Array(text.utf8)) }

    private func sendBytes(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress! + offset, $0.count - offset, flags) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    // MARK: - The bomb

    /// A gzip member of zeros that never ends, built by hand (Foundation has no deflate on Linux):
    /// the header, a fixed-Huffman block with the literal 0 and one match, then a 13-byte period of
    /// eight more matches (length 258, distance 1) that can be repeated forever. Each match is 13 bits
    /// for 258 bytes, so the stream expands ~159 times.
    static func deflatedZeros() -> (prefix: [UInt8], period: [UInt8]) {
        var writer = BitWriter()
        writer.bits(1, count: 1) // BFINAL: irrelevant, the block never ends
        writer.bits(1, count: 2) // BTYPE 01: fixed Huffman codes
        writer.huffman(0x30, count: 8) // literal 0
        let match = { (writer: inout BitWriter) in
            writer.huffman(0b1100_0101, count: 8) // length code 285: 258 bytes, no extra bits
            writer.huffman(0, count: 5) // distance code 0: distance 1
        }
        match(&writer) // 3 + 8 + 13 = 24 bits: byte-aligned from here on
        let prefix = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF] + writer.bytes
        var period = BitWriter()
        for _ in 0..<8 { match(&period) }
        return (prefix, period.bytes)
    }

    /// Deflate's bit order: values least significant bit first, Huffman codes most significant first.
    struct BitWriter {
        private(set) var bytes: [UInt8] = []
        private var used = 0

        mutating func bits(_ value: Int, count: Int) {
            for index in 0..<count { push((value >> index) & 1) }
        }

        mutating func huffman(_ code: Int, count: Int) {
            for index in stride(from: count - 1, through: 0, by: -1) { push((code >> index) & 1) }
        }

        private mutating func push(_ bit: Int) {
            if used == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= UInt8(bit << used)
            used = (used + 1) % 8
        }
    }
}
