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
///
/// Atomic replace is for regular files only. A character device (`/dev/null`, a terminal) or a FIFO
/// is written into directly — replacing it would destroy the node (as root, `/dev/full` became a
/// regular file). Sockets, block devices and directories are refused.
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

    /// Writes `data` to `path`: a regular file (or a new one) is replaced atomically, a character
    /// device or FIFO is written into. A new file gets mode 0644 less the umask; a replaced file keeps
    /// its permission bits but never setuid, setgid or sticky. On any failure the temporary file is
    /// removed and `WriteError` (exit 73) is thrown.
    public static func write(_ data: Data, to path: String) throws {
        guard !path.isEmpty else { throw WriteError(path: path, reason: "empty path") }
        var link = stat()
        let isLink = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
        var existing = stat()
        guard stat(path, &existing) == 0 else {
            let code = errno
            if code == ENOENT, isLink { throw WriteError(path: path, reason: "a symbolic link to a file that does not exist") }
            if code == ENOENT { return try replace(path, reportedAs: path, with: data, keepingModeOf: nil) }
            throw WriteError(path: path, reason: reason(code))
        }
        switch existing.st_mode & S_IFMT {
        case S_IFREG:
            // Through a link, the file it names is replaced and the link kept. A link that names no
            // path (`/dev/stdout` on a deleted file) is written through instead.
            guard isLink else { return try replace(path, reportedAs: path, with: data, keepingModeOf: existing) }
            guard let resolved = realpath(path, nil) else { return try writeInto(path, with: data, truncating: true) }
            defer { free(resolved) }
            try replace(String(cString: resolved), reportedAs: path, with: data, keepingModeOf: existing)
        case S_IFCHR, S_IFIFO:
            try writeInto(path, with: data, truncating: false)
        case S_IFDIR:
            throw WriteError(path: path, reason: "is a directory")
        case S_IFSOCK:
            throw WriteError(path: path, reason: "is a socket: name a file, a character device or a FIFO")
        default:
            throw WriteError(path: path, reason: "is a block device or special file: name a file, a character device or a FIFO")
        }
    }

    // MARK: - Regular files

    private static func replace(_ target: String, reportedAs path: String, with data: Data, keepingModeOf existing: stat?) throws {
        let directory: String
        let name: String
        if let slash = target.lastIndex(of: "/") {
            let head = String(target[..<slash])
            directory = head.isEmpty ? "/" : head
            name = String(target[target.index(after: slash)...])
        } else {
            directory = "."
            name = target
        }
        guard !name.isEmpty, name != ".", name != ".." else { throw WriteError(path: path, reason: "not a file name") }

        // A dot-name in the same directory: same file system (so rename is atomic) and hidden from
        // globs. Created 0644 so that the kernel applies the umask (mkstemp would give 0600).
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<16 {
            temporary = directory + "/." + name + ".tmp-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw WriteError(path: path, reason: reason(errno)) }
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        try writeAll(data, to: descriptor, path: path)
        if let existing {
            // Keep the owner where we may (root replacing a user's file), and the permission bits
            // without setuid, setgid and sticky: an SVG must never become a setuid program.
            _ = fchown(descriptor, existing.st_uid, existing.st_gid)
            guard fchmod(descriptor, existing.st_mode & 0o777) == 0 else { throw WriteError(path: path, reason: reason(errno)) }
        }
        guard fsync(descriptor) == 0 else { throw WriteError(path: path, reason: reason(errno)) }
        closed = true
        guard close(descriptor) == 0 else { throw WriteError(path: path, reason: reason(errno)) }
        guard rename(temporary, target) == 0 else { throw WriteError(path: path, reason: reason(errno)) }
        succeeded = true
    }

    // MARK: - Devices and FIFOs

    /// Writes into an existing node as `cat > path` would; a FIFO waits for its reader.
    private static func writeInto(_ path: String, with data: Data, truncating: Bool) throws {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (truncating ? O_TRUNC : 0))
        guard descriptor >= 0 else { throw WriteError(path: path, reason: reason(errno)) }
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        try writeAll(data, to: descriptor, path: path)
        closed = true
        guard close(descriptor) == 0 else { throw WriteError(path: path, reason: reason(errno)) }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        let writer = OutputWriter(fileDescriptor: descriptor, destination: path)
        do {
            try writer.write(contentsOf: data)
            try writer.flush()
        } catch let failure as OutputWriter.Failure {
            throw WriteError(path: path, reason: reason(failure.code))
        }
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
