// Test builds only: a plain `swift build` (release included) builds every target but has no Testing.
#if canImport(Testing)
    import Foundation
    import Testing

    /// Golden files: output compared byte for byte with a committed file that a person reviewed.
    ///
    /// `METRIKA_RECORD_GOLDEN=1` re-records a golden that differs (or is missing) and then fails the test
    /// anyway, naming the file: a recording run must never pass as a test run (it would compare the file
    /// with itself). Review the new file by eye (`git diff`), then run the tests again without the variable.
    public enum Golden {
        /// Whether this run re-records goldens.
        public static var recording: Bool { ProcessInfo.processInfo.environment["METRIKA_RECORD_GOLDEN"] == "1" }

        /// Expects `actual` to equal the file at `url`; `describe` says what differs (the got text, say).
        public static func expect(
            _ actual: String, matches url: URL, describe: @autoclosure () -> String = "",
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let bytes = Data(actual.utf8)
            let committed = try? Data(contentsOf: url)
            if recording {
                guard committed != bytes else { return }
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try bytes.write(to: url)
                Issue.record(
                    "re-recorded \(url.path): review it, then run the tests again without METRIKA_RECORD_GOLDEN",
                    sourceLocation: sourceLocation)
                return
            }
            guard let committed else {
                Issue.record(
                    "no golden file \(url.path): record it with METRIKA_RECORD_GOLDEN=1 and review it",
                    sourceLocation: sourceLocation)
                return
            }
            let extra = describe()
            #expect(
                committed == bytes,
                "\(url.lastPathComponent) differs from its golden\(extra.isEmpty ? "" : "; " + extra)",
                sourceLocation: sourceLocation)
        }
    }
#endif
