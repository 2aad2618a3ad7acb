import CCurl
import Foundation
import Synchronization

/// One request on one libcurl easy handle, run to its end by `perform()` on the calling thread (which
/// blocks: `CurlTransport` gives every exchange a thread of its own).
///
/// The bounds live here, where libcurl hands over the bytes: the body callback counts the
/// **decompressed** bytes (libcurl inflates gzip, br and zstd before it calls back, 16 KiB at a time)
/// and stops the transfer at the limit, so nothing is ever queued beyond it; `CURLOPT_TIMEOUT_MS` is a
/// total deadline; no redirect is followed and only http and https are spoken; certificates are
/// verified (libcurl's default, never turned off).
final class CurlExchange: @unchecked Sendable {
    // @unchecked: the transfer's state is touched only by the thread in `perform()` (libcurl calls
    // back on it, through an unretained pointer to self); only `cancelled` crosses threads, in a Mutex.
    /// What happens to the body's bytes.
    enum Sink {
        /// Collected whole, up to `limit` bytes.
        case collect(limit: Int)
        /// A 2xx body handed to `deliver` piece by piece (false from it stops the transfer: the reader
        /// gave up); of any other, the first `errorBodyLimit` bytes are kept in `errorBody`.
        case stream(deliver: @Sendable (UnsafeRawBufferPointer) -> Bool)
    }

    /// The largest part of a non-2xx body kept by a streamed exchange (it is only quoted in an error).
    static let errorBodyLimit = 64 * 1024

    private let request: HTTPRequest
    private let sink: Sink
    /// A request body written while it is produced (sent with chunked transfer encoding).
    private let upload: CurlUploadChannel?
    private let cancelled = Mutex(false)

    // Touched only by the thread in `perform()` (libcurl calls back on it).
    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    private(set) var body = Data()
    private var headerBytes = 0
    private var expectedLength: Int?
    private var overLimit = false
    private var readerStopped = false
    private(set) var errorBody = Data()

    init(_ request: HTTPRequest, sink: Sink, upload: CurlUploadChannel? = nil) {
        self.request = request
        self.sink = sink
        self.upload = upload
    }

    /// Makes the transfer stop at libcurl's next progress call (within about a second, sooner while
    /// bytes flow); `perform()` then throws `CancellationError`.
    func cancel() {
        cancelled.withLock { $0 = true }
    }

    var isCancelled: Bool {
        cancelled.withLock { $0 }
    }

    /// Whether the request may connect to this numeric address.
    func allows(_ address: String) -> Bool {
        request.allowsAddress?(address) ?? true
    }

    /// Runs the exchange. Returns when the whole answer is in (its status, headers and, when collected,
    /// body are then in the properties); throws `TransportError` or `CancellationError`.
    func perform() throws {
        guard CurlHandlePool.shared.ready else { throw TransportError.other("libcurl could not be initialized") }
        guard let handle = CurlHandlePool.shared.take() else {
            throw TransportError.other("libcurl could not make a handle")
        }
        var reusable = true
        defer { CurlHandlePool.shared.give(handle, reusable: reusable) }

        let errorSize = Int(metrika_curl_error_size())
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: errorSize)
        errorBuffer.initialize(repeating: 0, count: errorSize)
        defer { errorBuffer.deallocate() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }

        try configure(handle, errorBuffer: errorBuffer, headerList: &headerList)
        let code = curl_easy_perform(handle)
        upload?.close()
        if code != CURLE_OK { reusable = false }
        if isCancelled { throw CancellationError() }
        try outcome(code, message: String(cString: errorBuffer))
    }

    private func configure(
        _ handle: UnsafeMutableRawPointer, errorBuffer: UnsafeMutablePointer<CChar>,
        headerList: inout UnsafeMutablePointer<curl_slist>?
    ) throws {
        // The first option libcurl refuses, of every kind set below; checked once at the end.
        var failed: CURLcode = CURLE_OK
        func check(_ code: CURLcode) {
            if code != CURLE_OK, failed == CURLE_OK { failed = code }
        }
        func long(_ option: CURLoption, _ value: Int) { check(metrika_curl_set_long(handle, option, value)) }
        func text(_ option: CURLoption, _ value: String) {
            check(value.withCString { metrika_curl_set_pointer(handle, option, $0) }) // libcurl copies strings
        }
        func pointer(_ option: CURLoption, _ value: UnsafeRawPointer?) {
            check(metrika_curl_set_pointer(handle, option, value))
        }

        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw TransportError.other(
                "metrika speaks http and https only, not \(request.url.scheme ?? "a URL without a scheme")")
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        text(CURLOPT_URL, request.url.absoluteString)
        check(metrika_curl_allow_http_only(handle))
        long(CURLOPT_FOLLOWLOCATION, 0)
        long(CURLOPT_NOSIGNAL, 1)
        pointer(CURLOPT_ERRORBUFFER, errorBuffer)
        // Every encoding libcurl can decode; the body callback sees the decoded bytes.
        text(CURLOPT_ACCEPT_ENCODING, "")
        let milliseconds = Int(min(max(request.timeout, 0.001), 86_400) * 1000)
        switch sink {
        case .collect(let limit):
            long(CURLOPT_TIMEOUT_MS, milliseconds)
            // A declared length over the limit fails before the first byte of the body.
            check(metrika_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(max(0, limit))))
        case .stream:
            // A part of a Logs API export may take an hour: only connecting and idleness are bounded.
            long(CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            long(CURLOPT_LOW_SPEED_LIMIT, 1)
            long(CURLOPT_LOW_SPEED_TIME, max(1, Int(request.timeout.rounded(.up))))
        }

        switch request.method.uppercased() {
        case let method where upload != nil:
            // The body comes from the read callback, its length unknown: chunked transfer encoding.
            long(CURLOPT_POST, 1)
            if method != "POST" { text(CURLOPT_CUSTOMREQUEST, method) }
        case "GET":
            long(CURLOPT_HTTPGET, 1)
        case "HEAD":
            long(CURLOPT_NOBODY, 1)
        case let method:
            let body = request.body ?? Data()
            if method == "POST" {
                long(CURLOPT_POST, 1)
            } else {
                text(CURLOPT_CUSTOMREQUEST, method)
                if !body.isEmpty { long(CURLOPT_POST, 1) }
            }
            if method == "POST" || !body.isEmpty {
                check(metrika_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                body.withUnsafeBytes { bytes in
                    // COPYPOSTFIELDS: libcurl keeps its own copy; an empty body still needs a valid pointer.
                    var empty: UInt8 = 0
                    pointer(
                        CURLOPT_COPYPOSTFIELDS,
                        bytes.baseAddress.map(UnsafeRawPointer.init)
                            ?? withUnsafePointer(to: &empty) { UnsafeRawPointer($0) })
                }
            }
        }

        // libcurl sends `Expect: 100-continue` before larger bodies and waits for an answer that some
        // servers never give: an empty value turns it off.
        var lines = ["Expect:"]
        if upload != nil { lines.append("Transfer-Encoding: chunked") }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            // A value with CR, LF or NUL would smuggle a header (or cut this one): refuse to send it.
            let breaks: (Unicode.Scalar) -> Bool = { $0 == "\r" || $0 == "\n" || $0 == "\0" }
            guard !name.unicodeScalars.contains(where: breaks), !value.unicodeScalars.contains(where: breaks),
                !name.contains(":")
            else {
                throw TransportError.other("a header (\(name.prefix(40))) holds a line break")
            }
            // "Name;" is libcurl's way to send a header with an empty value.
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw TransportError.other("libcurl is out of memory")
            }
            headerList = appended
        }
        pointer(CURLOPT_HTTPHEADER, UnsafeRawPointer(headerList))

        check(metrika_curl_set_write_function(handle, CURLOPT_HEADERFUNCTION, curlHeaderCallback))
        pointer(CURLOPT_HEADERDATA, me)
        check(metrika_curl_set_write_function(handle, CURLOPT_WRITEFUNCTION, curlBodyCallback))
        pointer(CURLOPT_WRITEDATA, me)
        if upload != nil {
            check(metrika_curl_set_read_function(handle, curlReadCallback))
            pointer(CURLOPT_READDATA, me)
        }
        long(CURLOPT_NOPROGRESS, 0)
        check(metrika_curl_set_xferinfo_function(handle, curlProgressCallback))
        pointer(CURLOPT_XFERINFODATA, me)
        if request.allowsAddress != nil {
            // Every socket is checked where it is opened: no connection kept from an earlier request.
            check(metrika_curl_set_opensocket_function(handle, curlOpenSocketCallback))
            pointer(CURLOPT_OPENSOCKETDATA, me)
            long(CURLOPT_FRESH_CONNECT, 1)
            long(CURLOPT_FORBID_REUSE, 1)
        }

        if failed != CURLE_OK {
            throw TransportError.other("libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))")
        }
    }

    // MARK: - Callbacks (on the perform thread)

    /// One header line, CR LF included. A status line starts a new answer (after a `100 Continue`, or a
    /// proxy's `CONNECT` reply), so what came before it is forgotten.
    fileprivate func header(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        // libcurl bounds headers itself (100 KiB a line); this bounds their number and total.
        guard headerBytes <= 1 << 20 else { return false }
        var line = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = line.last, last == "\r" || last == "\n" || last == "\r\n" { line = line.dropLast() }
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
            headers = [:]
            expectedLength = nil
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, headers[name] == nil else { return true }
        headers[name] = value
        if name == "content-length" { expectedLength = Int(value) }
        return true
    }

    /// A piece of the decoded body. False stops the transfer.
    fileprivate func bodyBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch sink {
        case .collect(let limit):
            if bytes.count > limit - body.count {
                overLimit = true
                return false
            }
            if body.isEmpty, let expectedLength, expectedLength > 0 {
                // One allocation for an answer of a declared length (a larger, encoded one grows on).
                body.reserveCapacity(min(expectedLength, limit))
            }
            body.append(bytes.assumingMemoryBound(to: UInt8.self))
            return true
        case .stream(let deliver):
            guard (200..<300).contains(status) else {
                let room = Self.errorBodyLimit - errorBody.count
                errorBody.append(bytes.prefix(max(0, room)).assumingMemoryBound(to: UInt8.self))
                // The quoted start is all that is kept: stop rather than read an endless error body.
                if errorBody.count >= Self.errorBodyLimit { readerStopped = true }
                return !readerStopped
            }
            if !deliver(bytes) {
                readerStopped = true
                return false
            }
            return true
        }
    }

    /// The next piece of a streamed request body; nil abandons the transfer.
    fileprivate func uploadBytes(_ buffer: UnsafeMutableRawBufferPointer) -> Int? {
        upload?.read(into: buffer, cancelled: { isCancelled }) ?? 0
    }

    // MARK: - Outcome

    private func outcome(_ code: CURLcode, message: String) throws {
        if code == CURLE_OK { return }
        if overLimit || code == CURLE_FILESIZE_EXCEEDED, case .collect(let limit) = sink {
            throw TransportError.tooLarge(limit: limit)
        }
        if readerStopped, code == CURLE_WRITE_ERROR {
            // A streamed exchange whose reader (or error-body cap) stopped it: the head is the answer.
            return
        }
        throw Self.classify(code, message: message)
    }

    /// Sorts libcurl's failures into what `RetryPolicy` and the CLI's messages distinguish.
    static func classify(_ code: CURLcode, message: String) -> TransportError {
        let described = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return .cannotConnect(described)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            return .insecure(described)
        case CURLE_SSL_CONNECT_ERROR:
            // A handshake the network cut is transient; one the server's certificate or protocol failed is not.
            return isTLSFailure(described) ? .insecure(described) : .connectionLost(described)
        case CURLE_BAD_CONTENT_ENCODING, CURLE_WEIRD_SERVER_REPLY:
            return .malformed(described)
        case CURLE_RECV_ERROR where isMalformedAnswer(described),
            CURLE_UNSUPPORTED_PROTOCOL where described.lowercased().contains("http version"):
            return .malformed(described)
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM,
            CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR:
            return .connectionLost(described)
        default:
            return .other(described)
        }
    }

    /// libcurl reports a broken chunk and oversized headers as a receive error; its words tell them
    /// from a connection the network cut.
    static func isMalformedAnswer(_ description: String) -> Bool {
        let text = description.lowercased()
        return ["malformed", "chunk", "too large response headers", "header"].contains { text.contains($0) }
    }

    /// Words of libcurl's TLS messages that asking again cannot change.
    static func isTLSFailure(_ description: String) -> Bool {
        let text = description.lowercased()
        return ["certificate", "wrong version number", "handshake failure", "unsupported protocol", "alert"].contains {
            text.contains($0)
        }
    }
}

// libcurl's callbacks: plain C functions that find their exchange through the user pointer.

private func curlHeaderCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let user else { return 0 }
    let exchange = Unmanaged<CurlExchange>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    return exchange.header(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private func curlBodyCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let user else { return 0 }
    let exchange = Unmanaged<CurlExchange>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    return exchange.bodyBytes(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private func curlReadCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let user, let data else { return Int(metrika_curl_read_abort()) }
    let exchange = Unmanaged<CurlExchange>.fromOpaque(user).takeUnretainedValue()
    return exchange.uploadBytes(UnsafeMutableRawBufferPointer(start: data, count: size * count))
        ?? Int(metrika_curl_read_abort())
}

private func curlProgressCallback(
    _ user: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t
) -> Int32 {
    guard let user else { return 0 }
    return Unmanaged<CurlExchange>.fromOpaque(user).takeUnretainedValue().isCancelled ? 1 : 0
}

/// Opens the socket libcurl asked for when the request allows its address (`HTTPRequest.allowsAddress`).
private func curlOpenSocketCallback(
    _ user: UnsafeMutableRawPointer?, _: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let user, let address else { return metrika_curl_socket_bad() }
    let exchange = Unmanaged<CurlExchange>.fromOpaque(user).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 64)
    guard metrika_curl_sockaddr_text(address, &buffer, socklen_t(buffer.count)) == 0,
        exchange.allows(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    else { return metrika_curl_socket_bad() }
    return socket(
        address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
}
