import CCurl
import Foundation
import Synchronization

/// libcurl easy handles kept between requests, so that the pages of one report travel over one
/// kept-alive connection (each handle keeps its own connection and DNS caches). A handle is reset to
/// libcurl's defaults when it comes back: no callback or pointer of a finished exchange survives in it.
final class CurlHandlePool: Sendable {
    static let shared = CurlHandlePool()

    /// Whether `curl_global_init` succeeded; it runs once, before the first handle.
    let ready: Bool
    /// The idle handles' addresses (a raw pointer is not `Sendable`; its address is): the `Mutex`
    /// gives each to one taker only.
    private let idle = Mutex<[UInt]>([])
    /// More idle handles than metrika ever has requests in flight are closed instead.
    private let keep = 4

    private init() {
        ready = metrika_curl_global_init() == CURLE_OK
    }

    func take() -> UnsafeMutableRawPointer? {
        idle.withLock { $0.popLast() }.flatMap(UnsafeMutableRawPointer.init(bitPattern:)) ?? curl_easy_init()
    }

    /// Takes a handle back. One whose transfer failed is closed (its connection may be half-read).
    func give(_ handle: UnsafeMutableRawPointer, reusable: Bool) {
        curl_easy_reset(handle)
        let kept = idle.withLock { idle -> Bool in
            guard reusable, idle.count < keep else { return false }
            idle.append(UInt(bitPattern: handle))
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}
