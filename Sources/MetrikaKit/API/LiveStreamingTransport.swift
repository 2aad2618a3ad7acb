import Foundation

/// The production `StreamingHTTPTransport`: plain `http://` over `SocketStreamingTransport` (true
/// back-pressure, uploads too), `https://` downloads over `CurlTransport` (libcurl, paced by the reader).
public struct LiveStreamingTransport: StreamingHTTPTransport {
    public init() {}

    public func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) throws -> Void
    ) async throws -> StreamedResponseHead {
        if request.url.scheme?.lowercased() == "https" {
            return try await CurlTransport().exchange(request, upload: upload, receive: receive)
        }
        return try await SocketStreamingTransport().exchange(request, upload: upload, receive: receive)
    }
}
