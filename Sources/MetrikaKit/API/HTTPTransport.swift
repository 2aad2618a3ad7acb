import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP request as metrika sends it. Headers may hold the token: never log them.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// Seconds before the request is given up as timed out.
    public var timeout: Double

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Double = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// An HTTP response: status, headers with lower-cased names, and the whole body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// Why a request got no HTTP response at all.
public enum TransportError: Error, Sendable, Equatable {
    /// No answer within the request timeout.
    case timedOut
    /// The server could not be reached (refused, unknown host).
    case cannotConnect(String)
    /// The connection broke before the whole answer arrived.
    case connectionLost(String)
    /// Anything else the networking layer reported.
    case other(String)
}

/// The seam between metrika and the network: production uses `URLSessionTransport`, tests a fake.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the complete response, or throws `TransportError`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// The production transport, on URLSession with an ephemeral configuration (no cookies, no cache).
///
/// The session is created on the first request: commands that never touch the network (`--version`,
/// `--help`, `report --offline`) don't pay for it.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var created: URLSession?

    public init() {}

    deinit { created?.finishTasksAndInvalidate() }

    private var session: URLSession {
        lock.lock()
        defer { lock.unlock() }
        if let created { return created }
        FoundationSideFiles.prevent()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 4
        let session = URLSession(configuration: configuration)
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
        return try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    continuation.resume(throwing: URLSessionTransport.classify(error))
                    return
                }
                guard let http = response as? HTTPURLResponse else {
                    continuation.resume(throwing: TransportError.other("not an HTTP response"))
                    return
                }
                var headers: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    headers[String(describing: key).lowercased()] = String(describing: value)
                }
                continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
            }
            task.resume()
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
        default:
            return .other(nsError.localizedDescription)
        }
    }
}
