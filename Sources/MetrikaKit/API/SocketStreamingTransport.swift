import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// A `StreamingHTTPTransport` for plain `http://` on POSIX sockets: HTTP/1.1, one connection per
/// exchange (`Connection: close`), chunked or Content-Length bodies both ways, 64 KiB buffers.
///
/// Here a slow reader stops the writer (the socket buffers fill), which is what keeps memory bounded,
/// and a request body can be written while it is produced (ClickHouse inserts). `https://` downloads go
/// to `CurlTransport` instead (see `LiveStreamingTransport`).
public struct SocketStreamingTransport: StreamingHTTPTransport {
    public init() {}

    public func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) throws -> Void
    ) async throws -> StreamedResponseHead {
        guard request.url.scheme?.lowercased() == "http", let host = request.url.host else {
            throw TransportError.other("the streaming transport speaks plain http only, not \(request.url.scheme ?? "?")")
        }
        let port = request.url.port ?? 80
        let connection = try SocketConnection(host: host, port: port, timeout: request.timeout)
        defer { connection.close() }

        var target = request.url.path.isEmpty ? "/" : request.url.path
        if let query = request.url.query { target += "?" + query }
        var head = "\(request.method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            // A header value with CR or LF would smuggle a second header: refuse instead of sending it.
            // Scalars, not Characters: "\r\n" is one Character equal to neither "\r" nor "\n".
            let breaks: (Unicode.Scalar) -> Bool = { $0 == "\r" || $0 == "\n" || $0 == "\0" }
            guard !name.unicodeScalars.contains(where: breaks), !value.unicodeScalars.contains(where: breaks) else {
                throw TransportError.other("a header (\(name)) holds a line break")
            }
            head += "\(name): \(value)\r\n"
        }
        if upload != nil {
            head += "Transfer-Encoding: chunked\r\n\r\n"
        } else {
            head += "Content-Length: \(request.body?.count ?? 0)\r\n\r\n"
        }
        try connection.send(Array(head.utf8))
        if let upload {
            var uploadFailure: (any Error)?
            do {
                try await upload { chunk in
                    guard !chunk.isEmpty else { return }
                    var framed = Array((String(chunk.count, radix: 16) + "\r\n").utf8)
                    framed.append(contentsOf: chunk)
                    framed.append(contentsOf: [13, 10])
                    try connection.send(framed)
                }
                try connection.send(Array("0\r\n\r\n".utf8))
            } catch let error as TransportError {
                // The server may have stopped reading because it refused the data: its answer says why.
                uploadFailure = error
            }
            if let uploadFailure {
                if let head = try? connection.readResponse(receive: { _ in }), !(200..<300).contains(head.status) { return head }
                throw uploadFailure
            }
        } else if let body = request.body, !body.isEmpty {
            try connection.send(Array(body))
        }
        return try connection.readResponse(receive: receive)
    }
}

/// One client socket with an idle deadline on every wait.
final class SocketConnection {
    private var fd: Int32
    private let timeoutMilliseconds: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var start = 0
    private var end = 0

    init(host: String, port: Int, timeout: Double) throws {
        timeoutMilliseconds = Int32(max(1, min(timeout, 3_600)) * 1000)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw TransportError.cannotConnect("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        fd = -1
        while let info = candidate {
            candidate = info.pointee.ai_next
            let socketFD = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard socketFD >= 0 else { continue }
            #if canImport(Darwin)
                var yes: Int32 = 1
                setsockopt(socketFD, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let flags = fcntl(socketFD, F_GETFL, 0)
            _ = fcntl(socketFD, F_SETFL, flags | O_NONBLOCK)
            let result = connect(socketFD, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result == 0 || errno == EINPROGRESS {
                var poller = pollfd(fd: socketFD, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, timeoutMilliseconds) > 0 {
                    var code: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(socketFD, SOL_SOCKET, SO_ERROR, &code, &length)
                    if code == 0 {
                        fd = socketFD
                        return
                    }
                    lastError = String(cString: strerror(code))
                } else {
                    lastError = "no answer within \(timeoutMilliseconds / 1000) s"
                }
            } else {
                lastError = String(cString: strerror(errno))
            }
            Glibc.close(socketFD)
        }
        throw TransportError.cannotConnect("\(host):\(port): \(lastError)")
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    private func wait(for events: Int32) throws {
        var poller = pollfd(fd: fd, events: Int16(events), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        if ready == 0 { throw TransportError.timedOut }
        if ready < 0 && errno != EINTR { throw TransportError.connectionLost(String(cString: strerror(errno))) }
    }

    func send(_ bytes: [UInt8]) throws {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int32(POLLOUT))
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, flags) }
            if sent < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                throw TransportError.connectionLost(String(cString: strerror(errno)))
            }
            offset += sent
        }
    }

    /// Refills the buffer; false at end of stream.
    private func fill() throws -> Bool {
        if start == end {
            start = 0
            end = 0
        }
        while true {
            try wait(for: Int32(POLLIN))
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + end, $0.count - end, 0) }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                throw TransportError.connectionLost(String(cString: strerror(errno)))
            }
            end += count
            return count > 0
        }
    }

    /// One CRLF-terminated line without the CRLF, at most `limit` bytes.
    private func readLine(limit: Int = 16 * 1024) throws -> String {
        var line: [UInt8] = []
        while true {
            if start == end {
                guard try fill() else { throw TransportError.connectionLost("the connection closed mid-header") }
            }
            while start < end {
                let byte = buffer[start]
                start += 1
                if byte == 10 {
                    if line.last == 13 { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                line.append(byte)
                if line.count > limit { throw TransportError.other("a header line longer than \(limit) bytes") }
            }
            if start == end { start = 0; end = 0 }
        }
    }

    /// Hands the next at most `limit` bytes to `deliver`; false at end of stream.
    private func readSome(limit: Int, _ deliver: ([UInt8]) throws -> Void) throws -> Int {
        if start == end {
            guard try fill() else { return 0 }
        }
        let count = min(limit, end - start)
        try deliver(Array(buffer[start..<(start + count)]))
        start += count
        return count
    }

    func readResponse(receive: ([UInt8]) throws -> Void) throws -> StreamedResponseHead {
        var statusLine = try readLine()
        // Interim answers (100 Continue) come before the real one.
        while true {
            let pieces = statusLine.split(separator: " ", maxSplits: 2)
            guard pieces.count >= 2, pieces[0].hasPrefix("HTTP/1."), let status = Int(pieces[1]), (100..<600).contains(status) else {
                throw TransportError.other("not an HTTP response")
            }
            var headers: [String: String] = [:]
            var headerBytes = 0
            while true {
                let line = try readLine()
                if line.isEmpty { break }
                headerBytes += line.utf8.count
                if headerBytes > 64 * 1024 { throw TransportError.other("response headers over 64 KiB") }
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name] = headers[name].map { $0 + ", " + value } ?? value
            }
            if status < 200 {
                statusLine = try readLine()
                continue
            }
            var head = StreamedResponseHead(status: status, headers: headers)
            let success = (200..<300).contains(status)
            var collected = Data()
            let sink: ([UInt8]) throws -> Void = { chunk in
                if success {
                    try receive(chunk)
                } else if collected.count < 64 * 1024 {
                    collected.append(contentsOf: chunk.prefix(64 * 1024 - collected.count))
                }
            }
            try readBody(headers: headers, sink)
            head.errorBody = collected
            return head
        }
    }

    private func readBody(headers: [String: String], _ sink: ([UInt8]) throws -> Void) throws {
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            while true {
                let sizeLine = try readLine()
                let sizeText = sizeLine.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard let size = Int(sizeText, radix: 16), size >= 0 else {
                    throw TransportError.connectionLost("a malformed chunk header")
                }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    return
                }
                var remaining = size
                while remaining > 0 {
                    let got = try readSome(limit: remaining, sink)
                    guard got > 0 else { throw TransportError.connectionLost("the connection closed mid-chunk") }
                    remaining -= got
                }
                guard try readLine().isEmpty else { throw TransportError.connectionLost("a chunk longer than announced") }
            }
        } else if let lengthText = headers["content-length"] {
            guard var remaining = Int(lengthText), remaining >= 0 else {
                throw TransportError.other("a malformed Content-Length")
            }
            let total = remaining
            while remaining > 0 {
                let got = try readSome(limit: remaining, sink)
                guard got > 0 else {
                    throw TransportError.connectionLost("the connection closed after \(total - remaining) of \(total) bytes")
                }
                remaining -= got
            }
        } else {
            while try readSome(limit: Int.max, sink) > 0 {}
        }
    }
}
