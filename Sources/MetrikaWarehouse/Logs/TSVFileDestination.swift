import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSystem
import Synchronization

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
package final class TSVFileDestination: LogDestination, Sendable {
    private enum Target {
        case file(AtomicOutputFile)
        case standardOutput(OutputWriter)
    }

    /// The target and the bookkeeping of the part being loaded. `LogExporter` calls a destination from
    /// one task, one call at a time; the `Mutex` makes sharing it safe rather than assumed.
    private struct State {
        var target: Target
        var wroteHeader = false
        /// Where the part being loaded began (bytes of the file, whether the header was written) and the
        /// bytes it has written since: what `discardPart` takes back.
        var partStart = (length: 0, wroteHeader: false)
        var partBytes = 0
        /// The last byte written: a part must end with a line feed.
        var lastByte: UInt8 = 10

        var fileLength: Int {
            if case .file(let file) = target { return file.length }
            return 0
        }

        mutating func write(_ bytes: ArraySlice<UInt8>) throws {
            partBytes += bytes.count
            if let last = bytes.last { lastByte = last }
            switch target {
            case .file(let file): try file.write(contentsOf: bytes)
            case .standardOutput(let writer): try writer.write(contentsOf: bytes)
            }
        }
    }

    private let state: Mutex<State>

    /// Opens `path` (`-` = standard output); throws `AtomicFile.WriteError` (exit 73) when it cannot.
    package init(path: String) throws {
        if path == "-" {
            state = Mutex(
                State(target: .standardOutput(OutputWriter(fileDescriptor: 1, destination: "standard output"))))
        } else {
            state = Mutex(State(target: .file(try AtomicOutputFile(path: path))))
        }
    }

    package func load(part: Int, of count: Int, from: Day, to: Day, feed: (StreamWriter) async throws -> Void)
        async throws
    {
        var skippingHeader = state.withLock { state in
            state.partStart = (length: state.fileLength, wroteHeader: state.wroteHeader)
            state.partBytes = 0
            return state.wroteHeader
        }
        try await feed { chunk in
            var slice = chunk[...]
            if skippingHeader {
                guard let newline = slice.firstIndex(of: 10) else { return }
                slice = slice[(newline + 1)...]
                skippingHeader = false
            }
            try self.state.withLock { try $0.write(slice) }
        }
        let skipped = skippingHeader
        try state.withLock { state in
            if skipped == false { state.wroteHeader = true }
            // A part whose last row lacks its line feed would glue that row to the next part's first.
            if state.partBytes > 0, state.lastByte != 10 { try state.write([10][...]) }
        }
    }

    package func discardPart(part: Int, from: Day, to: Day) async -> Bool {
        state.withLock { state in
            if state.partBytes > 0 {
                guard case .file(let file) = state.target, file.canTruncate,
                    (try? file.truncate(to: state.partStart.length)) != nil
                else { return false }
            }
            state.wroteHeader = state.partStart.wroteHeader
            state.partBytes = 0
            return true
        }
    }

    /// A file is written afresh by every run: earlier parts are never kept.
    package func beginRange(from: Day, to: Day, resuming: Bool) async throws -> Bool { false }

    package func commitRange(from: Day, to: Day, parts: Int) async throws {}

    package func finish() async throws {
        try state.withLock { state in
            switch state.target {
            case .file(let file): try file.commit()
            case .standardOutput(let writer): try writer.flush()
            }
        }
    }

    package func abandon() {
        state.withLock { state in
            switch state.target {
            case .file(let file): file.discard()
            case .standardOutput: break
            }
        }
    }
}
