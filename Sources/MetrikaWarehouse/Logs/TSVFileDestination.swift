import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the TSV as received, one header line then every row, to a file or to stdout (`-`).
///
/// A file follows the rules of every `--output` (`AtomicOutputFile`): a regular file is written to a
/// temporary file beside it and renamed into place by `finish`, so a failed or interrupted run never
/// leaves a half-written file under the requested name; a character device or FIFO is written into
/// and never replaced; a symbolic link is kept and the file it names replaced. Failures are exit 73.
/// Standard output goes through an `OutputWriter` like report's: a failed write is exit 74, a reader
/// that went away a quiet 141. Every part starts with the header line; all but the first part's are
/// dropped. Chunks are streamed, never collected. A part fetched again after a failed attempt
/// replaces what that attempt wrote: a file's temporary is cut back to where the part began; into
/// standard output, a device or a FIFO a part can be fetched again only if nothing of it was written.
package final class TSVFileDestination: LogDestination, @unchecked Sendable {
    // @unchecked: not locked; `LogExporter` calls a destination from one task, one call at a time.
    private enum Target {
        case file(AtomicOutputFile)
        case standardOutput(OutputWriter)
    }

    private let target: Target
    private var wroteHeader = false
    /// Where the part being loaded began (bytes of the file, whether the header was written) and the
    /// bytes it has written since: what `discardPart` takes back.
    private var partStart = (length: 0, wroteHeader: false)
    private var partBytes = 0
    /// The last byte written: a part must end with a line feed.
    private var lastByte: UInt8 = 10

    /// Opens `path` (`-` = standard output); throws `AtomicFile.WriteError` (exit 73) when it cannot.
    package init(path: String) throws {
        if path == "-" {
            target = .standardOutput(OutputWriter(fileDescriptor: 1, destination: "standard output"))
        } else {
            target = .file(try AtomicOutputFile(path: path))
        }
    }

    package func load(part: Int, of count: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void) async throws {
        var skippingHeader = wroteHeader
        partStart = (length: fileLength, wroteHeader: wroteHeader)
        partBytes = 0
        try await feed { chunk in
            var slice = chunk[...]
            if skippingHeader {
                guard let newline = slice.firstIndex(of: 10) else { return }
                slice = slice[(newline + 1)...]
                skippingHeader = false
            }
            try self.write(slice)
        }
        if skippingHeader == false { wroteHeader = true }
        // A part whose last row lacks its line feed would glue that row to the next part's first.
        if partBytes > 0, lastByte != 10 { try write([10][...]) }
    }

    package func discardPart(part: Int, from: Day, to: Day) async -> Bool {
        if partBytes > 0 {
            guard case .file(let file) = target, file.canTruncate, (try? file.truncate(to: partStart.length)) != nil else { return false }
        }
        wroteHeader = partStart.wroteHeader
        partBytes = 0
        return true
    }

    /// A file is written afresh by every run: earlier parts are never kept.
    package func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool { false }

    package func commitRange(from: Day, to: Day, parts: Int) async throws {}

    package func finish() async throws {
        switch target {
        case .file(let file): try file.commit()
        case .standardOutput(let writer): try writer.flush()
        }
    }

    package func abandon() {
        switch target {
        case .file(let file): file.discard()
        case .standardOutput: break
        }
    }

    private var fileLength: Int {
        if case .file(let file) = target { return file.length }
        return 0
    }

    private func write(_ bytes: ArraySlice<UInt8>) throws {
        partBytes += bytes.count
        if let last = bytes.last { lastByte = last }
        switch target {
        case .file(let file): try file.write(contentsOf: bytes)
        case .standardOutput(let writer): try writer.write(contentsOf: bytes)
        }
    }
}
