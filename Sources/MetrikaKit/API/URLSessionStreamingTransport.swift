import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `https://` side of `LiveStreamingTransport`: a URLSession data task whose delegate hands the body
/// over as it arrives. Redirects are refused (the 3xx comes back as the answer). Memory stays bounded
/// by suspending the task while more than 8 MiB wait for the reader and resuming it below 1 MiB.
/// Uploads are not streamed over https (URLSession on Linux has no usable streamed request body):
/// ClickHouse is reached over `http://`.
public struct URLSessionStreamingTransport: StreamingHTTPTransport {
    public init() {}

    public func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) throws -> Void
    ) async throws -> StreamedResponseHead {
        guard upload == nil else {
            throw TransportError.other("streamed uploads need an http:// URL (https is supported for downloads only)")
        }
        let pump = StreamPump()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = request.timeout
        let session = URLSession(configuration: configuration, delegate: pump, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest)
        pump.attach(task)
        task.resume()

        var head: StreamedResponseHead?
        while true {
            switch await pump.next() {
            case .response(let status, let headers):
                head = StreamedResponseHead(status: status, headers: headers)
            case .data(let data):
                guard var current = head else { continue }
                if (200..<300).contains(current.status) {
                    try receive(Array(data))
                } else if current.errorBody.count < 64 * 1024 {
                    current.errorBody.append(data.prefix(64 * 1024 - current.errorBody.count))
                    head = current
                }
            case .finished(let error):
                if let error { throw URLSessionTransport.classify(error) }
                guard let head else { throw TransportError.other("not an HTTP response") }
                return head
            }
        }
    }
}

/// Delegate-to-reader hand-over for `URLSessionStreamingTransport`.
final class StreamPump: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Event {
        case response(Int, [String: String])
        case data(Data)
        case finished((any Error)?)
    }

    private let lock = NSLock()
    private var events: [Event] = []
    private var queuedBytes = 0
    private var suspended = false
    private var waiter: CheckedContinuation<Event, Never>?
    private var task: URLSessionDataTask?

    func attach(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        lock.unlock()
    }

    private func push(_ event: Event) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: event)
            return
        }
        events.append(event)
        if case .data(let data) = event {
            queuedBytes += data.count
            if queuedBytes > 8 << 20, !suspended {
                suspended = true
                task?.suspend()
            }
        }
        lock.unlock()
    }

    func next() async -> Event {
        await withCheckedContinuation { continuation in
            lock.lock()
            if !events.isEmpty {
                let event = events.removeFirst()
                if case .data(let data) = event {
                    queuedBytes -= data.count
                    if suspended, queuedBytes < 1 << 20 {
                        suspended = false
                        task?.resume()
                    }
                }
                lock.unlock()
                continuation.resume(returning: event)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse {
            var headers: [String: String] = [:]
            for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
            push(.response(http.statusCode, headers))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        push(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        push(.finished(error))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
