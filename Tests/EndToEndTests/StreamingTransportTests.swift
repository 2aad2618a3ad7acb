import Foundation
import MetrikaAPI
import MetrikaCLI
import MetrikaModel
import MetrikaRender
import Testing

/// `CurlTransport`'s streamed exchanges (Logs API parts, ClickHouse inserts) against canned answers
/// from one-connection servers on 127.0.0.1 (plain http; https differs only below libcurl).
@Suite("Streaming transport", .blockingLanes)
struct StreamingTransportTests {
    /// Accepts one connection on a free loopback port and answers it with `answer` (then closes, or
    /// stalls for `stallSeconds` before closing). Counts the connections.
    final class CannedServer: @unchecked Sendable {
        let fd: Int32
        let port: Int
        private let lock = NSLock()
        private var acceptedCount = 0
        var accepted: Int {
            lock.lock()
            defer { lock.unlock() }
            return acceptedCount
        }

        init(answer: [UInt8], stallSeconds: UInt32 = 0) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = self.fd
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                    bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard ok else { throw SimpleError("cannot listen") }
            port = Int(UInt16(bigEndian: address.sin_port))
            // One connection, then the listening socket is closed by this thread (under the lock, so
            // `stop` never touches a descriptor number the system has already handed to another test).
            let thread = Thread { [self] in
                let client = accept(fd, nil, nil)
                lock.lock()
                closed = true
                close(fd)
                lock.unlock()
                guard client >= 0 else { return }
                lock.lock()
                acceptedCount += 1
                lock.unlock()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                _ = recv(client, &buffer, buffer.count, 0)
                _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if stallSeconds > 0 { sleep(stallSeconds) }
                close(client)
            }
            thread.start()
        }

        private var closed = false

        func stop() {
            lock.lock()
            if !closed { shutdown(fd, Int32(SHUT_RDWR)) }
            lock.unlock()
        }

        var url: URL { URL(string: "http://127.0.0.1:\(port)/part")! }
    }

    @Test func aRedirectIsHandedBackNotFollowed() async throws {
        let server = try CannedServer(
            answer: Array("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/steal\r\nContent-Length: 0\r\n\r\n".utf8))
        defer { server.stop() }
        var received = 0
        let head = try await CurlTransport().exchange(
            HTTPRequest(url: server.url, headers: ["Authorization": "OAuth secret"], timeout: 5), upload: nil
        ) { received += $0.count }
        #expect(head.status == 302)
        #expect(received == 0)
        #expect(server.accepted == 1)
    }

    @Test func aChunkedBodyArrivesInOrderInBoundedChunks() async throws {
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        var answer = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for start in stride(from: 0, to: payload.count, by: 70_000) {
            let piece = payload[start..<min(payload.count, start + 70_000)]
            answer += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + [13, 10]
        }
        answer += Array("0\r\n\r\n".utf8)
        let server = try CannedServer(answer: answer)
        defer { server.stop() }
        var received: [UInt8] = []
        var largest = 0
        let head = try await CurlTransport().exchange(HTTPRequest(url: server.url, timeout: 5), upload: nil) { chunk in
            largest = max(largest, chunk.count)
            received += chunk
        }
        #expect(head.status == 200)
        #expect(received == payload)
        #expect(largest <= 65_536)
    }

    @Test func aBodyCutBeforeTheLastChunkIsAnError() async throws {
        let server = try CannedServer(
            answer: Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n10\r\nabc".utf8))
        defer { server.stop() }
        await #expect(throws: TransportError.self) {
            _ = try await CurlTransport().exchange(HTTPRequest(url: server.url, timeout: 5), upload: nil) { _ in }
        }
    }

    @Test func aServerThatStallsMidBodyHitsTheIdleDeadline() async throws {
        let server = try CannedServer(
            answer: Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc".utf8), stallSeconds: 8)
        defer { server.stop() }
        await #expect(throws: TransportError.timedOut) {
            _ = try await CurlTransport().exchange(HTTPRequest(url: server.url, timeout: 1), upload: nil) { _ in }
        }
        // The error's kind is the proof: without the deadline the 8 s stall would end in a cut
        // connection, not a timeout. No clock here: under the full suite an async test may wait
        // over a minute for a thread to resume it (seen in CI), which says nothing of the transport.
    }

    @Test func aHeaderWithALineBreakIsNeverSent() async throws {
        let server = try CannedServer(answer: Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
        defer { server.stop() }
        await #expect(throws: TransportError.self) {
            _ = try await CurlTransport().exchange(
                HTTPRequest(url: server.url, headers: ["X-ClickHouse-Key": "a\r\nX-Evil: 1"], timeout: 5), upload: nil
            ) { _ in }
        }
    }

    struct ReaderGaveUp: Error {}

    @Test("libcurl's downloads are paced by their reader: a slow reader holds a fast server back")
    func aSlowReaderHoldsTheServerBack() async throws {
        let server = try HostileServer(.endlessChunked, maxBytes: 1 << 30, maxSeconds: 30)
        defer { server.stop() }
        var received = 0
        var paused = false
        await #expect(throws: ReaderGaveUp.self) {
            _ = try await CurlTransport().exchange(
                HTTPRequest(url: URL(string: server.baseURL + "/part")!, timeout: 10), upload: nil
            ) { chunk in
                received += chunk.count
                if !paused {
                    paused = true
                    // A reader busy for 2 s: at loopback speed an unpaced client would take gigabytes.
                    try await Task.sleep(for: .seconds(2))
                    return
                }
                if received > 1 << 20 { throw ReaderGaveUp() }
            }
        }
        // What was sent is what the reader took, the 4 MiB between libcurl and the reader, and the
        // kernel's socket buffers on both sides.
        #expect(server.bodyBytesSent < 48 << 20, "the server sent \(server.bodyBytesSent) bytes")
    }

    @Test("A reader that throws stops libcurl's transfer, and the error is the reader's")
    func aThrowingReaderEndsTheTransfer() async throws {
        let server = try HostileServer(.endlessChunked, maxBytes: 1 << 30, maxSeconds: 30)
        defer { server.stop() }
        await #expect(throws: ReaderGaveUp.self) {
            _ = try await CurlTransport().exchange(
                HTTPRequest(url: URL(string: server.baseURL + "/part")!, timeout: 10), upload: nil
            ) { _ in
                throw ReaderGaveUp()
            }
        }
        // libcurl's thread lets go of the connection: the server, blocked in send, sees it close.
        let deadline = Date().addingTimeInterval(10)
        while !server.clientHungUp, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(server.clientHungUp)
    }

    @Test("A non-2xx body of a libcurl download is kept to its first 64 KiB, and an endless one ends")
    func anEndlessErrorBodyIsCut() async throws {
        var answer = Array("HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let piece = [UInt8](repeating: UInt8(ascii: "e"), count: 50_000)
        for _ in 0..<4 { answer += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + [13, 10] }
        // No last chunk: the server then stalls, as an endless body would.
        let server = try CannedServer(answer: answer, stallSeconds: 8)
        defer { server.stop() }
        var received = 0
        // An answer rather than an error is the proof that reading stopped at 64 KiB: reading on, the
        // transfer would have met the stall and ended in the 5 s idle deadline (a timeout error).
        let head = try await CurlTransport().exchange(HTTPRequest(url: server.url, timeout: 5), upload: nil) {
            received += $0.count
        }
        #expect(head.status == 500)
        #expect(head.errorBody.count == 64 * 1024)
        #expect(received == 0)
    }

    // MARK: - Uploads (ClickHouse inserts)

    /// One connection: reads the request head, then either the whole chunked body (answering 200 with
    /// its length and a checksum) or nothing (answering 400 at once, as a server refusing the data).
    final class UploadServer: @unchecked Sendable {
        enum Mode {
            case consume(delay: Double)
            case refuse, vanish
        }
        let port: Int
        private let lock = NSLock()
        private var startedReading = false
        private var body: [UInt8] = []
        private var head = ""

        var readingStarted: Bool {
            lock.lock()
            defer { lock.unlock() }
            return startedReading
        }
        var receivedHead: String {
            lock.lock()
            defer { lock.unlock() }
            return head
        }
        var url: URL { URL(string: "http://127.0.0.1:\(port)/?query=INSERT")! }

        init(_ mode: Mode) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard ok else { throw SimpleError("cannot listen") }
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread { [self] in
                let client = accept(fd, nil, nil)
                close(fd)
                guard client >= 0 else { return }
                defer { close(client) }
                var timeout = timeval(tv_sec: 300, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var buffered: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                func fill() -> Bool {
                    let got = recv(client, &chunk, chunk.count, 0)
                    guard got > 0 else { return false }
                    buffered += chunk[0..<got]
                    return true
                }
                func line() -> String? {
                    while true {
                        if let end = buffered.firstIndex(of: 10) {
                            let text = String(decoding: buffered[..<end], as: UTF8.self).trimmingCharacters(
                                in: .newlines)
                            buffered.removeFirst(end + 1)
                            return text
                        }
                        guard fill() else { return nil }
                    }
                }
                var lines: [String] = []
                while let text = line(), !text.isEmpty { lines.append(text) }
                lock.lock()
                head = lines.joined(separator: "\n")
                lock.unlock()
                func answer(_ status: String, _ text: String) {
                    let bytes = Array(
                        "HTTP/1.1 \(status)\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)"
                            .utf8)
                    _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                switch mode {
                case .vanish:
                    // A server killed mid-insert: some of the body read, then the connection just closes.
                    _ = fill()
                    return
                case .refuse:
                    answer("400 Bad Request", "Code: 27. DB::Exception: Cannot parse input")
                    // A graceful refusal: stop sending, read (and drop) what still comes, then close.
                    shutdown(client, Int32(SHUT_WR))
                    while fill() { buffered.removeAll() }
                case .consume(let delay):
                    Thread.sleep(forTimeInterval: delay)
                    lock.lock()
                    startedReading = true
                    lock.unlock()
                    var received: [UInt8] = []
                    while let size = line().flatMap({ Int($0, radix: 16) }), size > 0 {
                        while buffered.count < size + 2 { guard fill() else { return } }
                        received += buffered[0..<size]
                        buffered.removeFirst(size + 2)
                    }
                    var sum: UInt64 = 0
                    for byte in received { sum = sum &* 31 &+ UInt64(byte) }
                    answer("200 OK", "\(received.count) \(sum)")
                }
            }.start()
        }
    }

    /// The idle deadline of the upload tests: generous, because the writer is this async test and the
    /// full suite can keep it from running for over a minute (libcurl's thread waits meanwhile).
    static let uploadTimeout = 180.0

    static func payload(_ count: Int) -> [UInt8] {
        var random = SeededRandom(seed: 42)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    @Test("libcurl sends a streamed body whole and in order, chunked")
    func anUploadArrivesWhole() async throws {
        let server = try UploadServer(.consume(delay: 0))
        let data = Self.payload(3_000_000)
        var answer: [UInt8] = []
        let head = try await CurlTransport().exchange(
            HTTPRequest(
                method: "POST", url: server.url, headers: ["X-ClickHouse-User": "metrika"], timeout: Self.uploadTimeout),
            upload: { write in
                for start in stride(from: 0, to: data.count, by: 100_000) {
                    try await write(Array(data[start..<min(data.count, start + 100_000)]))
                }
            }
        ) { answer += $0 }
        var sum: UInt64 = 0
        for byte in data { sum = sum &* 31 &+ UInt64(byte) }
        #expect(head.status == 200)
        #expect(String(decoding: answer, as: UTF8.self) == "\(data.count) \(sum)")
        #expect(server.receivedHead.lowercased().contains("transfer-encoding: chunked"))
        #expect(server.receivedHead.contains("X-ClickHouse-User: metrika"))
    }

    @Test("A server that does not read holds the writer back: the body is not piled up in memory")
    func aSlowServerHoldsTheWriterBack() async throws {
        let server = try UploadServer(.consume(delay: 1.5))
        var written = 0
        var writtenWhenTheServerStarted: Int?
        let piece = [UInt8](repeating: 65, count: 65_536)
        let head = try await CurlTransport().exchange(
            HTTPRequest(method: "POST", url: server.url, timeout: Self.uploadTimeout),
            upload: { write in
                while written < 96 << 20 {
                    if writtenWhenTheServerStarted == nil, server.readingStarted {
                        writtenWhenTheServerStarted = written
                    }
                    try await write(piece)
                    written += piece.count
                }
            }
        ) { _ in }
        #expect(head.status == 200)
        // 4 MiB between the writer and libcurl, plus both sides' socket buffers; unpaced, all 96 MiB.
        #expect(
            (writtenWhenTheServerStarted ?? written) < 40 << 20,
            "written before the server read: \(writtenWhenTheServerStarted ?? written)")
    }

    @Test("A server that refuses the data mid-upload is answered with its own error, not a broken pipe")
    func aRefusalMidUploadIsTheAnswer() async throws {
        let server = try UploadServer(.refuse)
        let piece = [UInt8](repeating: 66, count: 65_536)
        let head = try await CurlTransport().exchange(
            HTTPRequest(method: "POST", url: server.url, timeout: Self.uploadTimeout),
            upload: { write in
                for _ in 0..<(64 << 20) / piece.count { try await write(piece) }
            }
        ) { _ in }
        #expect(head.status == 400)
        #expect(String(decoding: head.errorBody, as: UTF8.self).contains("Cannot parse input"))
    }

    @Test("A writer that fails abandons the upload, and its error is the one thrown")
    func aFailingWriterAbandonsTheUpload() async throws {
        let server = try UploadServer(.consume(delay: 0))
        await #expect(throws: ReaderGaveUp.self) {
            _ = try await CurlTransport().exchange(
                HTTPRequest(method: "POST", url: server.url, timeout: Self.uploadTimeout),
                upload: { write in
                    try await write(Array("a\tb\n".utf8))
                    throw ReaderGaveUp()
                }
            ) { _ in }
        }
    }

    struct BlamedTheSource: Error {}

    @Test("A server that dies mid-upload is the upload's failure, not the failure of the download feeding it")
    func aDeadServerIsBlamedNotTheFeed() async throws {
        let server = try UploadServer(.vanish)
        let source = try HostileServer(.endlessChunked, maxBytes: 1 << 30, maxSeconds: 30)
        defer { source.stop() }
        // The shape of `logs --clickhouse`: each piece of a download is written into the insert, and the
        // download's client (like MetrikaClient.downloadLogPart) turns its transport errors into its own.
        let error = await #expect(throws: (any Error).self) {
            _ = try await CurlTransport().exchange(
                HTTPRequest(method: "POST", url: server.url, timeout: Self.uploadTimeout),
                upload: { write in
                    do {
                        _ = try await CurlTransport().exchange(
                            HTTPRequest(url: URL(string: source.baseURL + "/part")!, timeout: 10), upload: nil
                        ) { try await write($0) }
                    } catch is TransportError {
                        throw BlamedTheSource()
                    }
                }
            ) { _ in }
        }
        #expect(error is TransportError, "the insert's failure was reported as \(String(describing: error))")
    }
}
