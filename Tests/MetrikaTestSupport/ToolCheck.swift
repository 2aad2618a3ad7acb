// Test builds only: a plain `swift build` (release included) builds every target but has no Testing.
#if canImport(Testing)
    import Foundation
    import Testing

    /// Optional programs some tests need: python3 for the independent checkers, rsvg-convert and the
    /// chart's font for rendering. When one is missing the test is cancelled — reported as skipped, with
    /// a message naming the package and `scripts/setup` — instead of failing on a machine without it.
    public enum ToolCheck {
        /// The executable `name` found on a `PATH`-style search path, or nil.
        public static func locate(_ name: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"])
            -> String?
        {
            for directory in (searchPath ?? "").split(separator: ":") where !directory.isEmpty {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            return nil
        }

        /// Skips the running test unless `name` is on the search path.
        public static func require(
            _ name: String, package: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"],
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            guard locate(name, searchPath: searchPath) == nil else { return }
            try Test.cancel(
                "skipped: \(name) is missing (apt-get install \(package), or run scripts/setup)",
                sourceLocation: sourceLocation)
        }

        /// Skips the running test unless fontconfig knows the font family `family`.
        public static func requireFont(
            _ family: String, package: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            if let fcList = locate("fc-list") {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: fcList)
                process.arguments = [family, "family"]
                let out = Pipe()
                process.standardOutput = out
                process.standardError = FileHandle.nullDevice
                try process.run()
                let listed = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                if process.terminationStatus == 0, !listed.isEmpty { return }
            }
            try Test.cancel(
                "skipped: the font '\(family)' is missing (apt-get install \(package), or run scripts/setup)",
                sourceLocation: sourceLocation)
        }
    }
#endif
