import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `--output` path open for writing, streamed: the rules of `AtomicFile` for output that is
/// written piece by piece (a Logs API export of hundreds of MB) instead of held whole.
///
/// A regular file (or a new one) is written to a temporary dot-file beside it and renamed over it by
/// `commit`; `discard` (or deinit without `commit`) removes the temporary, so the old file stays.
/// Through a symbolic link, the file it names is replaced and the link kept. A character device or a
/// FIFO is written into directly (a FIFO's `open` waits for its reader, as `cat > fifo` does) and
/// never replaced. Sockets, block devices and directories are refused. Every failure is an
/// `AtomicFile.WriteError` (exit 73, 74 on a full disk) naming the path.
///
/// Not thread-safe: one task owns it.
package final class AtomicOutputFile {
    /// The path as the user gave it, for messages.
    package let path: String
    private var descriptor: Int32
    private let writer: OutputWriter
    /// Set when replacing a regular file: the temporary, the file it replaces, and that file's
    /// owner and mode (nil for a new file).
    private let replacement: (temporary: String, target: String, existing: stat?)?
    private var finished = false
    /// Bytes written so far, buffered ones included.
    package private(set) var length = 0

    /// Whether `truncate(to:)` can take written bytes back: yes for the temporary of a regular file,
    /// no for a device or FIFO (what was written there is gone).
    package var canTruncate: Bool { replacement != nil }

    /// Opens `path` as the rules above say; throws `AtomicFile.WriteError` when it cannot.
    package init(path: String) throws {
        self.path = path
        guard !path.isEmpty else { throw AtomicFile.WriteError(path: path, reason: "empty path") }
        var link = stat()
        let isLink = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
        var existing = stat()
        var target: (name: String, existing: stat?)?
        if stat(path, &existing) != 0 {
            let code = errno
            if code == ENOENT, isLink {
                throw AtomicFile.WriteError(path: path, reason: "a symbolic link to a file that does not exist")
            }
            guard code == ENOENT else { throw AtomicFile.WriteError(path: path, errorNumber: code) }
            target = (path, nil)
        } else {
            switch existing.st_mode & S_IFMT {
            case S_IFREG:
                if !isLink {
                    target = (path, existing)
                } else if let resolved = realpath(path, nil) {
                    // Through a link, the file it names is replaced and the link kept.
                    target = (String(cString: resolved), existing)
                    free(resolved)
                }
            // A link that names no path (`/dev/stdout` on a deleted file) is written through.
            case S_IFCHR, S_IFIFO:
                break
            case S_IFDIR:
                throw AtomicFile.WriteError(path: path, reason: "is a directory")
            case S_IFSOCK:
                throw AtomicFile.WriteError(
                    path: path, reason: "is a socket: name a file, a character device or a FIFO")
            default:
                throw AtomicFile.WriteError(
                    path: path, reason: "is a block device or special file: name a file, a character device or a FIFO")
            }
        }
        if let target {
            let temporary = try Self.temporaryName(for: target.name, reportedAs: path)
            // Created 0644 so that the kernel applies the umask (mkstemp would give 0600).
            var opened: Int32 = -1
            var name = ""
            for _ in 0..<16 {
                name = temporary + String(UInt32.random(in: 0...UInt32.max), radix: 16)
                opened = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if opened >= 0 || errno != EEXIST { break }
            }
            guard opened >= 0 else { throw AtomicFile.WriteError(path: path, errorNumber: errno) }
            descriptor = opened
            replacement = (name, target.name, target.existing)
        } else {
            // Into an existing node, as `cat > path` would; a regular file reached through a
            // dangling-name link is truncated first, a device or FIFO is not.
            let truncate = (existing.st_mode & S_IFMT) == S_IFREG ? O_TRUNC : 0
            descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | truncate)
            guard descriptor >= 0 else { throw AtomicFile.WriteError(path: path, errorNumber: errno) }
            replacement = nil
        }
        writer = OutputWriter(fileDescriptor: descriptor, destination: path)
    }

    deinit { discard() }

    /// Appends bytes (buffered); a failed write throws `AtomicFile.WriteError`, and so does every
    /// later call.
    package func write<Bytes: Collection>(contentsOf bytes: Bytes) throws where Bytes.Element == UInt8 {
        do {
            try writer.write(contentsOf: bytes)
            length += bytes.count
        } catch let failure as OutputWriter.Failure {
            throw AtomicFile.WriteError(path: path, errorNumber: failure.code)
        }
    }

    /// Takes back everything written after the first `length` bytes (a log part whose download failed
    /// half-way, before it is fetched again). Only where `canTruncate`; fails with `WriteError`.
    package func truncate(to length: Int) throws {
        guard canTruncate, !finished, length <= self.length else {
            throw AtomicFile.WriteError(path: path, reason: "cannot take back what was written")
        }
        do {
            try writer.flush()
        } catch let failure as OutputWriter.Failure {
            throw AtomicFile.WriteError(path: path, errorNumber: failure.code)
        }
        guard ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, off_t(length), SEEK_SET) >= 0 else {
            throw AtomicFile.WriteError(path: path, errorNumber: errno)
        }
        self.length = length
    }

    /// Writes what is buffered and makes the output visible: a replaced file gets the old one's
    /// permission bits (never setuid, setgid or sticky), is flushed to disk and renamed into place.
    /// On failure the temporary is removed and the old file stays.
    package func commit() throws {
        guard !finished else { return }
        do {
            try writer.flush()
        } catch let failure as OutputWriter.Failure {
            throw AtomicFile.WriteError(path: path, errorNumber: failure.code)
        }
        if let replacement {
            if let existing = replacement.existing {
                // Keep the owner where we may (root replacing a user's file), and the permission bits
                // without setuid, setgid and sticky: an SVG must never become a setuid program.
                _ = fchown(descriptor, existing.st_uid, existing.st_gid)
                guard fchmod(descriptor, existing.st_mode & 0o777) == 0 else {
                    throw AtomicFile.WriteError(path: path, errorNumber: errno)
                }
            }
            guard fsync(descriptor) == 0 else { throw AtomicFile.WriteError(path: path, errorNumber: errno) }
        }
        let closed = close(descriptor)
        let closeError = errno
        descriptor = -1
        guard closed == 0 else { throw AtomicFile.WriteError(path: path, errorNumber: closeError) }
        if let replacement {
            guard rename(replacement.temporary, replacement.target) == 0 else {
                throw AtomicFile.WriteError(path: path, errorNumber: errno)
            }
        }
        finished = true
    }

    /// Drops the output: the temporary is removed (the old file stays). Bytes already written into a
    /// device or FIFO cannot be taken back.
    package func discard() {
        guard !finished else { return }
        finished = true
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        if let replacement { unlink(replacement.temporary) }
    }

    /// `dir/.name.tmp-` for `dir/name`: a dot-name in the same directory, so on the same file system
    /// (rename is atomic) and hidden from globs.
    private static func temporaryName(for target: String, reportedAs path: String) throws -> String {
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
        guard !name.isEmpty, name != ".", name != ".." else {
            throw AtomicFile.WriteError(path: path, reason: "not a file name")
        }
        return directory + "/." + name + ".tmp-"
    }
}
