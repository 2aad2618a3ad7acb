import CCurl
import Foundation

/// libcurl easy handles kept between requests, so that the pages of one report travel over one
/// kept-alive connection (each handle keeps its own connection and DNS caches). A handle is reset to
/// libcurl's defaults when it comes back: no callback or pointer of a finished exchange survives in it.
final class CurlHandlePool: @unchecked Sendable {
    static let shared = CurlHandlePool()

    /// Whether `curl_global_init` succeeded; it runs once, before the first handle.
    let ready: Bool
    private let lock = NSLock()
    private var idle: [UnsafeMutableRawPointer] = []
    /// More idle handles than metrika ever has requests in flight are closed instead.
    private let keep = 4

    private init() {
        ready = metrika_curl_global_init() == CURLE_OK
    }

    func take() -> UnsafeMutableRawPointer? {
        lock.lock()
        let handle = idle.popLast()
        lock.unlock()
        return handle ?? curl_easy_init()
    }

    /// Takes a handle back. One whose transfer failed is closed (its connection may be half-read).
    func give(_ handle: UnsafeMutableRawPointer, reusable: Bool) {
        curl_easy_reset(handle)
        lock.lock()
        if reusable, idle.count < keep {
            idle.append(handle)
            lock.unlock()
            return
        }
        lock.unlock()
        curl_easy_cleanup(handle)
    }
}
