import Foundation

/// An HTTP request as metrika sends it. Headers may hold the token: never log them.
package struct HTTPRequest: Sendable {
    package var method: String
    package var url: URL
    package var headers: [String: String]
    package var body: Data?
    /// Seconds the whole exchange may take, the last byte of the answer included (not only idleness).
    package var timeout: Double
    /// The largest body accepted, counted after decompression; a larger one fails with `TransportError.tooLarge`.
    package var maxResponseBytes: Int
    /// Whether the request may connect to a numeric address (`93.184.216.34`, `2a00:1450::1`): asked of
    /// the very socket libcurl opens, after its own name lookup, so a name that resolves elsewhere the
    /// second time (DNS rebinding) is still checked; a refused address fails the request as a failed
    /// connection. Set, every request opens a connection of its own. nil: any address.
    package var allowsAddress: (@Sendable (String) -> Bool)?

    /// 64 MiB: a page of 20,000 rows, the most metrika asks for, is ~5 MB of JSON (~270 bytes a row with
    /// six metrics); even the API's maximum of 100,000 rows (~27 MB) fits.
    package static let defaultMaxResponseBytes = 64 << 20

    package init(
        method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Double = 30,
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// An HTTP response: status, headers with lower-cased names, and the whole body.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [String: String]
    package var body: Data

    package init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// Whether this is a redirect (3xx), which metrika never follows.
    package var isRedirect: Bool { (300..<400).contains(status) }

    /// Where a redirect points, as `scheme://host:port` of its `Location` resolved against `url`: what an
    /// error message may name. Only plain host characters are shown; anything else is described.
    package func redirectTarget(from url: URL) -> String {
        guard let location = headers["location"], !location.isEmpty else { return "no Location" }
        guard let target = URL(string: location, relativeTo: url)?.absoluteURL, let host = target.host,
            let scheme = target.scheme
        else {
            return "an unreadable Location"
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        guard !host.isEmpty, host.count <= 100, host.allSatisfy(allowed.contains),
            ["http", "https"].contains(scheme.lowercased())
        else {
            return "an unreadable Location"
        }
        return "\(scheme.lowercased())://\(host)" + (target.port.map { ":\($0)" } ?? "")
    }
}

/// Why a request got no HTTP response at all.
package enum TransportError: Error, Sendable, Equatable {
    /// No answer within the request timeout.
    case timedOut
    /// The server could not be reached (refused, unknown host).
    case cannotConnect(String)
    /// The connection broke before the whole answer arrived.
    case connectionLost(String)
    /// The answer grew past `HTTPRequest.maxResponseBytes` (after decompression); reading stopped there.
    case tooLarge(limit: Int)
    /// The answer broke HTTP itself: a chunk of the wrong size, a body its `Content-Encoding` cannot
    /// decode, headers past libcurl's limit. Not transient: the server answered, unreadably.
    case malformed(String)
    /// The TLS handshake failed: an untrusted, expired or mismatched certificate, or no common protocol.
    /// Never transient: retrying cannot make a certificate trusted.
    case insecure(String)
    /// Anything else the networking layer reported.
    case other(String)
}

/// The seam between metrika and the network: production uses `CurlTransport`, tests a fake.
package protocol HTTPTransport: Sendable {
    /// Sends one request and returns the complete response, or throws `TransportError`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
