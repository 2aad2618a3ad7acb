import Foundation
import MetrikaModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes output files so that a reader sees either the old file or the complete new one, never a
/// half-written file: the bytes go to a temporary file in the same directory, are flushed to disk,
/// and the temporary file is then renamed over the target (rename is atomic within one file system).
/// A cron job that mails a chart right after writing it can therefore never mail half a chart.
///
/// Atomic replace is for regular files only. A character device (`/dev/null`, a terminal) or a FIFO
/// is written into directly — replacing it would destroy the node (as root, `/dev/full` became a
/// regular file). Sockets, block devices and directories are refused.
package enum AtomicFile {
    /// The failure to create or replace an output file, naming the path and the reason: exit 73, or
    /// 74 when the disk was full (or the quota, or a device error) — as on standard output.
    package struct WriteError: MetrikaFailure, Equatable {
        /// The path that could not be written.
        package let path: String
        /// The system's reason (`strerror`).
        package let reason: String
        /// The system's error number, when there is one.
        package var errorNumber: Int32?

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// The failure of a system call, by its error number.
        package init(path: String, errorNumber: Int32) {
            self.init(path: path, reason: String(cString: strerror(errorNumber)))
            self.errorNumber = errorNumber
        }

        package var exitCode: Int32 {
            switch errorNumber {
            case ENOSPC?, EIO?, EDQUOT?, EFBIG?: return ExitCode.ioError
            default: return ExitCode.cannotCreate
            }
        }
        package var message: String { "cannot write \(path): \(reason)" }
    }

    /// Writes `data` to `path`: a regular file (or a new one) is replaced atomically, a character
    /// device or FIFO is written into. A new file gets mode 0644 less the umask; a replaced file keeps
    /// its permission bits but never setuid, setgid or sticky. On any failure the temporary file is
    /// removed and `WriteError` (exit 73, 74 on a full disk) is thrown. `AtomicOutputFile` holds these rules, for
    /// output streamed piece by piece as well.
    package static func write(_ data: Data, to path: String) throws {
        let file = try AtomicOutputFile(path: path)
        try file.write(contentsOf: data)
        try file.commit()
    }
}
