import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps swift-corelibs-foundation from creating directories metrika never uses.
///
/// On Linux, creating any `URLSessionConfiguration` (even `.ephemeral`, whose cookie storage metrika
/// then sets to nil) first builds `HTTPCookieStorage.shared`, whose initializer creates
/// `$XDG_DATA_HOME/<name of the binary's directory>/` (`~/.local/share/bin/` for `/usr/local/bin/metrika`)
/// for a cookie file that is never written: metrika sends no cookies and keeps none. The shared
/// storage is built here first, once, while `XDG_DATA_HOME` names `/dev/null`, under which no
/// directory can be made; Foundation then keeps it in memory only. metrika's own paths come from
/// the environment captured at start-up (`CLIContext.environment`), which this does not touch.
///
/// (`URLCache.shared` makes `~/.cache/org.swift.foundation.URLCache/<binary>/` the same way, from the
/// same configuration initializer; `XDG_CACHE_HOME` plays the part of `XDG_DATA_HOME` there.)
enum FoundationSideFiles {
    /// Runs the set-up once per process (Swift initializes a static constant exactly once).
    static func prevent() {
        _ = once
    }

    private static let once: Void = {
        #if os(Linux)
        // Changed for the few microseconds of one initializer, before the first URLSession exists
        // (no networking thread reads the environment yet).
        let saved = getenv("XDG_DATA_HOME").map { String(cString: $0) }
        setenv("XDG_DATA_HOME", "/dev/null", 1)
        _ = HTTPCookieStorage.shared
        if let saved { setenv("XDG_DATA_HOME", saved, 1) } else { unsetenv("XDG_DATA_HOME") }
        #endif
    }()
}
