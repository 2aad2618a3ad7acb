import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The production transport, on URLSession with an ephemeral configuration (no cookies, no cache).
///
/// Every answer is untrusted, so the transport bounds it: it follows **no redirect** (the 3xx itself
/// is returned, so the token and the body never travel to another scheme, host or port), it stops
/// reading a body past `HTTPRequest.maxResponseBytes` counted **after** decompression (libcurl inflates
/// gzip, br and zstd before the bytes reach the delegate, so a gzip bomb is bounded too), and it gives
/// each exchange a **total** deadline of `HTTPRequest.timeout` — URLSession's own timeout measures only
/// idleness, which a server that drips one byte a second never reaches.
///
/// The session is created on the first request: commands that never touch the network (`--version`,
/// `--help`, `report --offline`) don't pay for it.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var created: URLSession?
    private let delegate = TransferDelegate()

    public init() {}

    deinit { created?.finishTasksAndInvalidate() }

    private var session: URLSession {
        lock.lock()
        defer { lock.unlock() }
        if let created { return created }
        let configuration = FoundationSideFiles.ephemeralConfiguration()
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 4
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        created = session
        return session
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let session = self.session
        let transfer = Transfer(limit: max(0, request.maxResponseBytes))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest)
                guard transfer.begin(continuation, task: task, deadline: request.timeout) else { return }
                delegate.register(transfer, for: task)
                task.resume()
            }
        } onCancel: {
            transfer.finish(throwing: CancellationError())
        }
    }

    static func classify(_ error: any Error) -> TransportError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return .other(nsError.localizedDescription) }
        switch nsError.code {
        case NSURLErrorTimedOut:
            return .timedOut
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed, NSURLErrorNotConnectedToInternet:
            return .cannotConnect(nsError.localizedDescription)
        case NSURLErrorNetworkConnectionLost, NSURLErrorCannotParseResponse, NSURLErrorBadServerResponse, NSURLErrorZeroByteResource, NSURLErrorCannotDecodeRawData, NSURLErrorCannotDecodeContentData:
            return .connectionLost(nsError.localizedDescription)
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateUntrusted,
             NSURLErrorServerCertificateHasUnknownRoot, NSURLErrorServerCertificateNotYetValid,
             NSURLErrorClientCertificateRejected, NSURLErrorClientCertificateRequired:
            return .insecure(nsError.localizedDescription)
        case NSURLErrorUnknown where isTLSFailure(nsError.localizedDescription):
            return .insecure(nsError.localizedDescription)
        default:
            return .other(nsError.localizedDescription)
        }
    }

    /// swift-corelibs-foundation reports libcurl's TLS failures as NSURLErrorUnknown with curl's own
    /// words ("SSL certificate problem: self-signed certificate", "SSL: no alternative certificate
    /// subject name matches target host name"), so on Linux the words are all there is to go by. Only
    /// failures that asking again cannot fix count; a handshake cut by the network stays transient.
    static func isTLSFailure(_ description: String) -> Bool {
        let text = description.lowercased()
        return ["certificate", "wrong version number", "handshake failure", "unsupported protocol"].contains { text.contains($0) }
    }
}

/// One exchange in flight: collects the answer as it arrives and resumes its caller exactly once —
/// with the response, or with the first of: a network error, the size limit, the deadline, cancellation.
private final class Transfer: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?
    private var task: URLSessionTask?
    private var deadline: DispatchWorkItem?
    private var watch: DispatchSourceTimer?
    private var response: HTTPURLResponse?
    private var body = Data()
    private var finished = false

    /// Its own queue, above the default priority: the watch must run while the delivery queue is flooded.
    private static let watchQueue = DispatchQueue(label: "metrika.transfer-watch", qos: .userInteractive)

    init(limit: Int) {
        self.limit = limit
    }

    /// Arms the deadline; false (with the caller resumed) when the exchange was cancelled before it began.
    func begin(_ continuation: CheckedContinuation<HTTPResponse, any Error>, task: URLSessionTask, deadline seconds: Double) -> Bool {
        let timer = DispatchWorkItem { [weak self] in self?.finish(throwing: TransportError.timedOut) }
        lock.lock()
        if finished {
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return false
        }
        self.continuation = continuation
        self.task = task
        self.deadline = timer
        // URLSession hands the delegate its bytes through an unbounded queue: a server faster than the
        // delegate piles them up there (~1 GB before the delegate's count reached 64 MiB, measured). The
        // task's own count is kept where libcurl writes, so watching it stops the transfer in time.
        let watch = DispatchSource.makeTimerSource(queue: Self.watchQueue)
        watch.schedule(deadline: .now() + .milliseconds(5), repeating: .milliseconds(5))
        let limit = Int64(self.limit)
        watch.setEventHandler { [weak self, weak task] in
            guard let task, task.countOfBytesReceived > limit else { return }
            self?.finish(throwing: TransportError.tooLarge(limit: Int(limit)))
        }
        self.watch = watch
        lock.unlock()
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0.001, seconds), execute: timer)
        watch.resume()
        return true
    }

    func received(_ response: URLResponse) {
        lock.lock()
        defer { lock.unlock() }
        self.response = response as? HTTPURLResponse
    }

    /// Appends a piece of the (decompressed) body; past the limit the exchange fails and the task is cancelled.
    func received(_ data: Data) {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        if data.count > limit - body.count {
            lock.unlock()
            finish(throwing: TransportError.tooLarge(limit: limit))
            return
        }
        body.append(data)
        lock.unlock()
    }

    func complete(error: (any Error)?) {
        if let error {
            finish(throwing: URLSessionTransport.classify(error))
            return
        }
        lock.lock()
        let response = self.response
        let body = self.body
        lock.unlock()
        guard let response else {
            finish(throwing: TransportError.other("not an HTTP response"))
            return
        }
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            headers[String(describing: key).lowercased()] = String(describing: value)
        }
        finish(returning: HTTPResponse(status: response.statusCode, headers: headers, body: body))
    }

    func finish(throwing error: any Error) {
        guard let (continuation, task) = end() else { return }
        task?.cancel()
        continuation?.resume(throwing: error)
    }

    private func finish(returning response: HTTPResponse) {
        guard let (continuation, _) = end() else { return }
        continuation?.resume(returning: response)
    }

    /// Marks the exchange finished (once) and hands out what must be resumed and cancelled.
    private func end() -> (CheckedContinuation<HTTPResponse, any Error>?, URLSessionTask?)? {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return nil }
        finished = true
        let result = (continuation, task)
        continuation = nil
        task = nil
        deadline?.cancel()
        deadline = nil
        watch?.cancel()
        watch = nil
        body = Data()
        return result
    }
}

/// The session's delegate: routes each task's events to its `Transfer`, and refuses every redirect.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    func register(_ transfer: Transfer, for task: URLSessionTask) {
        lock.lock()
        defer { lock.unlock() }
        transfers[task.taskIdentifier] = transfer
    }

    private func transfer(for task: URLSessionTask, removing: Bool = false) -> Transfer? {
        lock.lock()
        defer { lock.unlock() }
        return removing ? transfers.removeValue(forKey: task.taskIdentifier) : transfers[task.taskIdentifier]
    }

    /// The Metrika and OAuth APIs never redirect. Following one would send `Authorization` (and a POST
    /// body with the refresh token) wherever the `Location` says; answering nil returns the 3xx itself.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        transfer(for: dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        transfer(for: task, removing: true)?.complete(error: error)
    }
}
