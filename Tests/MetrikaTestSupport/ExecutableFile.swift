import Foundation

/// Stand-in programs (a fake sendmail, an rsvg-convert wrapper) and copies of binaries, made by a
/// child `sh`, never opened for writing by the test process itself. Tests run in parallel in one
/// process: a program another test forks at the moment this process holds a file open for writing
/// inherits that descriptor, and until it execs, running the file fails with "Text file busy"
/// (ETXTBSY) — a flaky failure seen in the suite.
package enum ExecutableFile {
    /// `text` as an executable file (mode 755) at `path`.
    package static func write(_ text: String, to path: String) throws {
        try shell(#"cat > "$1" && chmod 755 "$1""#, path, input: Data(text.utf8))
    }

    /// A copy of the executable `source` at `path` (mode 755).
    package static func copy(_ source: String, to path: String) throws {
        try shell(#"cp "$2" "$1" && chmod 755 "$1""#, path, source, input: nil)
    }

    private static func shell(_ script: String, _ arguments: String..., input: Data?) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "sh"] + arguments
        process.environment = ["PATH": "/usr/bin:/bin"]
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        // `write(contentsOf:)` throws where `write(_:)` would crash the test process (EPIPE, EINTR).
        if let input { try stdin.fileHandleForWriting.write(contentsOf: input) }
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: arguments[0]])
        }
    }
}
