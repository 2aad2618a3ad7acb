import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps swift-corelibs-foundation from creating directories metrika never uses.
///
/// On Linux, creating a `URLSessionConfiguration` (even `.ephemeral`, whose cookie storage and cache
/// metrika then sets to nil) builds a cookie storage and a URL cache whose initializers create
/// `$XDG_DATA_HOME/<name of the binary's directory>/` (`~/.local/share/bin/` for
/// `/usr/local/bin/metrika`) and `~/.cache/org.swift.foundation.URLCache/<binary>/`, for files that
/// are never written: metrika keeps no cookies and caches nothing. The configuration is therefore
/// built while `XDG_DATA_HOME` and `XDG_CACHE_HOME` name `/dev/null`, under which no directory can be
/// made; Foundation then keeps both in memory only. metrika's own paths come from the environment
/// captured at start-up (`CLIContext.environment`), which this does not touch.
enum FoundationSideFiles {
    /// An ephemeral configuration, made without leaving directories behind.
    static func ephemeralConfiguration() -> URLSessionConfiguration {
        #if os(Linux)
        // Changed for the few microseconds of one initializer, before the first URLSession exists
        // (no networking thread reads the environment yet).
        return whileUnusable("XDG_DATA_HOME") { whileUnusable("XDG_CACHE_HOME") { URLSessionConfiguration.ephemeral } }
        #else
        return URLSessionConfiguration.ephemeral
        #endif
    }

    /// Runs `body` with the environment variable `name` naming `/dev/null` (no directory can be
    /// made under it), then puts it back as it was.
    private static func whileUnusable<T>(_ name: String, _ body: () -> T) -> T {
        let saved = getenv(name).map { String(cString: $0) }
        setenv(name, "/dev/null", 1)
        defer { if let saved { setenv(name, saved, 1) } else { unsetenv(name) } }
        return body()
    }
}
