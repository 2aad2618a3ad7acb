#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes output files so that a reader sees either the old file or the complete new one, never a
/// half-written file: the bytes go to a temporary file in the same directory, are flushed to disk,
/// and the temporary file is then renamed over the target (rename is atomic within one file system).
/// A cron job that mails a chart right after writing it can therefore never mail half a chart.
public enum AtomicFile {
    /// The failure to create or replace an output file: exit 73, naming the path and the reason.
    public struct WriteError: MetrikaFailure, Equatable {
        /// The path that could not be written.
        public let path: String
        /// The system's reason (`strerror`).
        public let reason: String
        public var exitCode: Int32 { ExitCode.cannotCreate }
        public var message: String { "cannot write \(path): \(reason)" }
    }

    /// Atomically replaces (or creates) the file at `path` with `data`. A new file gets mode 0644; a
    /// replaced file keeps its mode. On any failure the temporary file is removed and `WriteError`
    /// (exit 73) is thrown.
    public static func write(_ data: Data, to path: String) throws {
        guard !path.isEmpty else { throw WriteError(path: path, reason: "empty path") }
        let directory: String
        let name: String
        if let slash = path.lastIndex(of: "/") {
            let head = String(path[..<slash])
            directory = head.isEmpty ? "/" : head
            name = String(path[path.index(after: slash)...])
        } else {
            directory = "."
            name = path
        }
        guard !name.isEmpty, name != ".", name != ".." else { throw WriteError(path: path, reason: "not a file name") }

        var existing = stat()
        var mode: mode_t = 0o644
        if stat(path, &existing) == 0 {
            guard (existing.st_mode & S_IFMT) != S_IFDIR else { throw WriteError(path: path, reason: "is a directory") }
            mode = existing.st_mode & 0o7777
        }

        // A dot-name in the same directory: same file system (so rename is atomic) and hidden from globs.
        var template = Array((directory + "/." + name + ".tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw WriteError(path: path, reason: systemReason()) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            do {
                try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
            } catch {
                throw WriteError(path: path, reason: systemReason())
            }
            guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else { throw WriteError(path: path, reason: systemReason()) }
        }
        guard rename(temporary, path) == 0 else { throw WriteError(path: path, reason: systemReason()) }
        succeeded = true
    }

    private static func systemReason() -> String {
        String(cString: strerror(errno))
    }
}
