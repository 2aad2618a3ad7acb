import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the TSV as received, one header line then every row, to a file or to stdout (`-`).
///
/// A regular file is written to a temporary file beside it and renamed into place by `finish`, so a
/// failed or interrupted run never leaves a half-written file under the requested name. Every part
/// starts with the header line; all but the first part's are dropped.
public final class TSVFileDestination: LogDestination, @unchecked Sendable {
    private let path: String
    private let temporaryPath: String?
    private var fd: Int32
    private var wroteHeader = false

    /// Opens `path` (`-` = standard output); throws `AtomicFile.WriteError` (exit 73) when it cannot.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            fd = 1
            temporaryPath = nil
            return
        }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AtomicFile.WriteError(path: path, reason: "it is a directory")
        }
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".\(getpid()).part"
        fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFile.WriteError(path: path, reason: String(cString: strerror(errno))) }
        temporaryPath = temporary
    }

    deinit {
        if let temporaryPath, fd >= 0 {
            close(fd)
            unlink(temporaryPath)
        }
    }

    public func load(part: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void) async throws {
        var skippingHeader = wroteHeader
        try await feed { chunk in
            var slice = chunk[...]
            if skippingHeader {
                guard let newline = slice.firstIndex(of: 10) else { return }
                slice = slice[(newline + 1)...]
                skippingHeader = false
            }
            try self.writeAll(slice)
        }
        if skippingHeader == false { wroteHeader = true }
    }

    /// A file is written afresh by every run: earlier parts are never kept.
    public func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool { false }

    public func commitRange(from: Day, to: Day, parts: Int) async throws {}

    public func finish() async throws {
        guard let temporaryPath else { return }
        guard fsync(fd) == 0 || errno == EINVAL else { throw AtomicFile.WriteError(path: path, reason: String(cString: strerror(errno))) }
        close(fd)
        fd = -1
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw AtomicFile.WriteError(path: path, reason: reason)
        }
    }

    public func abandon() {
        guard let temporaryPath, fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(temporaryPath)
    }

    private func writeAll(_ bytes: ArraySlice<UInt8>) throws {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes.withUnsafeBytes { raw in
                write(fd, raw.baseAddress! + (offset - bytes.startIndex), bytes.endIndex - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.WriteError(path: path == "-" ? "standard output" : path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}
