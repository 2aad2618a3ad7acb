import Foundation

/// One HTTP request as the server read it off the socket.
package struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ... as sent (case kept).
    package var method: String
    /// The path part of the request target, without the query.
    package var path: String
    /// The raw query string after `?` (empty when there is none).
    package var query: String
    /// Header fields in arrival order; names are lower-cased.
    package var headers: [(name: String, value: String)]
    /// The body (Content-Length or chunked), possibly empty.
    package var body: [UInt8]

    /// Creates a request; tests use this to drive the simulator without a socket.
    package init(
        method: String, path: String, query: String = "", headers: [(name: String, value: String)] = [],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers.map { (name: $0.name.lowercased(), value: $0.value) }
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first(where: { $0.name == lowered })?.value
    }

    /// The decoded query parameters in order.
    var queryItems: [(String, String)] { FormCoding.decode(query) }

    /// The decoded form body (`application/x-www-form-urlencoded`).
    var formItems: [(String, String)] { FormCoding.decode(String(decoding: body, as: UTF8.self)) }
}

/// One HTTP response the simulator wants to send.
package struct HTTPResponse: Sendable {
    /// Status code.
    package var status: Int
    /// Header fields other than Content-Length and Connection, which the server writes itself.
    package var headers: [(name: String, value: String)]
    /// The body bytes.
    package var body: [UInt8]
    /// The document the body was written from; faults that distort bodies work on it.
    var document: JSONValue?
    /// Builds `document` on demand, for bodies written straight to bytes (large reports).
    var documentBuilder: (@Sendable () -> JSONValue)?

    /// The document behind the body, built if necessary.
    var sourceDocument: JSONValue? { document ?? documentBuilder?() }
    /// When set, send the headers with the full Content-Length but only this many body bytes,
    /// then close the socket (the `cut` fault).
    var truncatedBodyLength: Int?
    /// Close the connection after this response.
    var closesConnection = false
    /// A body produced while it is sent (large Logs API parts), written with chunked transfer
    /// encoding instead of `body`. The producer hands each chunk to `emit` (false: the client is
    /// gone) and returns false to break the connection without the final chunk (a cut part).
    var streamedBody: (@Sendable (_ emit: ([UInt8]) -> Bool) -> Bool)?

    /// A response with a raw body.
    package init(status: Int, contentType: String? = nil, body: [UInt8] = []) {
        self.status = status
        self.headers = contentType.map { [(name: "Content-Type", value: $0)] } ?? []
        self.body = body
    }

    /// A JSON response written from `document`.
    static func json(_ status: Int, _ document: JSONValue) -> HTTPResponse {
        var response = HTTPResponse(
            status: status, contentType: "application/json; charset=utf-8", body: document.bytes)
        response.document = document
        return response
    }

    /// The reason phrase for the status line.
    static func reason(for status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 411: return "Length Required"
        case 413: return "Payload Too Large"
        case 420: return "Enhance Your Calm"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }

    /// The bytes of the status line and header section, ending with the blank line.
    func head(keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPResponse.reason(for: status))\r\n"
        text += "Server: metrika-fake-api\r\n"
        for header in headers {
            text += "\(header.name): \(header.value)\r\n"
        }
        text += streamedBody == nil ? "Content-Length: \(body.count)\r\n" : "Transfer-Encoding: chunked\r\n"
        text +=
            keepAlive && !closesConnection && truncatedBodyLength == nil
            ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        text += "\r\n"
        return Array(text.utf8)
    }
}
