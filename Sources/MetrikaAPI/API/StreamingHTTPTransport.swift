import Foundation

/// The status line and headers of a streamed exchange; for a non-2xx answer also the start of its
/// body (at most 64 KiB), so the caller can quote the server's error.
package struct StreamedResponseHead: Sendable {
    package var status: Int
    /// Header names lower-cased.
    package var headers: [String: String]
    /// The first 64 KiB of a non-2xx body; empty for 2xx (that body went to the receiver).
    package var errorBody: Data

    package init(status: Int, headers: [String: String] = [:], errorBody: Data = Data()) {
        self.status = status
        self.headers = headers
        self.errorBody = errorBody
    }
}

/// Sends an upload chunk of a streamed request body; suspended (never blocking a thread) while the
/// receiver has not taken enough of the chunks before.
package typealias StreamWriter = ([UInt8]) async throws -> Void

/// The streaming seam beside `HTTPTransport`: bodies flow through in chunks and are never held whole.
///
/// Used for Logs API parts (tens of megabytes each) and ClickHouse inserts. Like `HTTPTransport` it
/// follows no redirects (a 3xx is handed back as it came) and sends exactly the headers it is given,
/// so the `Authorization` header goes only where the caller addressed it.
package protocol StreamingHTTPTransport: Sendable {
    /// Sends `request`. With `upload`, the body is whatever `upload` writes (chunked transfer
    /// encoding), and `request.body` is ignored. A 2xx body is handed to `receive` chunk by chunk as it
    /// arrives; the next chunk waits until `receive` returned, so a `receive` that writes each chunk on
    /// to a slower upload paces the download by it. `request.timeout` bounds connecting and every wait
    /// for the next chunk (an idle deadline, not a total one: a 10 GB part may take an hour).
    func exchange(
        _ request: HTTPRequest, upload: ((StreamWriter) async throws -> Void)?, receive: ([UInt8]) async throws -> Void
    ) async throws -> StreamedResponseHead
}
