import Foundation
import Testing
import MetrikaAPI
import MetrikaCLI
import MetrikaStore
import MetrikaSystem
import MetrikaWarehouse

/// Optional programs some tests need: python3 for the independent checkers, the sqlite3 shell. When one is missing the test is cancelled — reported as skipped, with
/// a message naming the package and `scripts/setup` — instead of failing on a machine without it.
/// (RenderTests has the same small helper: test targets cannot share code without a support target.)
enum ToolCheck {
    /// The executable `name` found on a `PATH`-style search path, or nil.
    static func locate(_ name: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for directory in (searchPath ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Skips the running test unless `name` is on the search path.
    static func require(_ name: String, package: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"],
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard locate(name, searchPath: searchPath) == nil else { return }
        try Test.cancel("skipped: \(name) is missing (apt-get install \(package), or run scripts/setup)", sourceLocation: sourceLocation)
    }

}

