import Foundation

/// Where a command writes text: stdout or stderr of the process, or memory in tests.
/// Writes are buffered (a 100,000-row CSV must not cost a syscall per row) and flushed by `flush()`,
/// which `CLI.run` calls before it returns.
public final class TextSink: TextOutputStream, @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private let fileDescriptor: Int32?
    private var captured: [UInt8] = []
    private let flushThreshold = 1 << 16

    /// A sink writing to a file descriptor (1 for stdout, 2 for stderr).
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// A sink that keeps everything in memory (tests read it with `text`).
    public init() {
        self.fileDescriptor = nil
    }

    public func write(_ string: String) {
        lock.lock()
        defer { lock.unlock() }
        if fileDescriptor == nil {
            captured.append(contentsOf: string.utf8)
            return
        }
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= flushThreshold { flushLocked() }
    }

    /// Writes bytes as they are (a PNG to standard output).
    public func write(bytes: Data) {
        lock.lock()
        defer { lock.unlock() }
        if fileDescriptor == nil {
            captured.append(contentsOf: bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { flushLocked() }
    }

    /// Writes whatever is buffered.
    public func flush() {
        lock.lock()
        defer { lock.unlock() }
        flushLocked()
    }

    private func flushLocked() {
        guard let fileDescriptor, !buffer.isEmpty else { return }
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let written = Foundation.write(fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    break  // EPIPE or a closed descriptor: nothing useful left to do with the text.
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// What an in-memory sink has received.
    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: captured, as: UTF8.self)
    }
}
