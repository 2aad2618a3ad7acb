import Foundation
import MetrikaSystem

/// Where a command writes text: stdout or stderr of the process, or memory in tests.
///
/// A thin, locked text face of an `OutputWriter` (notes and progress reach stderr from several
/// tasks). Text writes cannot throw: a failed write is remembered, later text is dropped, and
/// `flushChecked()` — which `CLI.run` calls before it returns — throws it (exit 74, or a quiet 141
/// for a closed pipe). Report sinks write bytes straight into `writer` from the command's task.
package final class TextSink: TextOutputStream, @unchecked Sendable {
    // @unchecked: every method holds `lock`, but `writer` is handed to the report sinks, which write
    // into it unlocked from the command's one task; a Mutex could not hand it out.
    private let lock = NSLock()
    /// The byte path underneath; stdout's is the report sinks' destination, so everything on
    /// stdout keeps its order.
    package let writer: OutputWriter

    /// A sink writing to a file descriptor (1 for stdout, 2 for stderr).
    package init(fileDescriptor: Int32) {
        writer = OutputWriter(
            fileDescriptor: fileDescriptor,
            destination: fileDescriptor == 1
                ? "standard output" : fileDescriptor == 2 ? "standard error" : "descriptor \(fileDescriptor)")
    }

    /// A sink that keeps everything in memory (tests read it with `text`).
    package init() {
        writer = OutputWriter()
    }

    package func write(_ string: String) {
        lock.lock()
        defer { lock.unlock() }
        try? writer.write(string)
    }

    /// Writes whatever is buffered; a failure is remembered (see `failure`), not thrown — for
    /// stderr, where there is nowhere left to report it.
    package func flush() {
        lock.lock()
        defer { lock.unlock() }
        try? writer.flush()
    }

    /// Writes whatever is buffered and throws the first failure of this sink, if any.
    package func flushChecked() throws {
        lock.lock()
        defer { lock.unlock() }
        try writer.flush()
    }

    /// The first failed write, if any.
    package var failure: OutputWriter.Failure? {
        lock.lock()
        defer { lock.unlock() }
        return writer.failure
    }

    /// What an in-memory sink has received.
    package var text: String {
        lock.lock()
        defer { lock.unlock() }
        return writer.text
    }
}
