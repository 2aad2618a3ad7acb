import MetrikaModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one byte path of every output: bytes are appended to a reusable buffer and handed to a file
/// descriptor (stdout, or an output file) in large writes, or kept in memory for tests.
///
/// Formatters append UTF-8 bytes directly (no String is built per flush); a full buffer is written
/// with `write(2)`, EINTR retried and partial writes continued. A failed write is thrown as `Failure`
/// and remembered: the writer then drops everything and every later write or flush throws the same
/// failure, so a full disk costs one failed syscall, not one per row.
///
/// Not thread-safe: one task owns a writer (stdout's belongs to the running command).
package final class OutputWriter {
    /// A write that the system refused: exit 74 (EX_IOERR), or 141 for a reader that went away.
    package struct Failure: MetrikaFailure, Equatable {
        /// Where the bytes were going: `standard output` or a path.
        package let destination: String
        /// The system's error number (`errno`).
        package let code: Int32

        /// The reader of a pipe closed it (`metrika … | head`): the consumer has all it wants.
        package var isClosedPipe: Bool { code == EPIPE }
        package var exitCode: Int32 { isClosedPipe ? ExitCode.closedPipe : ExitCode.ioError }
        package var message: String { "cannot write to \(destination): \(String(cString: strerror(code)))" }

        package init(destination: String, code: Int32) {
            self.destination = destination
            self.code = code
        }
    }

    /// Bytes collected before a `write(2)`: large enough that a 100,000-row report costs ~100
    /// syscalls, small enough to stay in cache.
    package static let defaultCapacity = 1 << 16

    private let fileDescriptor: Int32?
    private let destination: String
    private let capacity: Int
    private var buffer: [UInt8] = []
    private var captured: [UInt8] = []
    /// The first failure; once set, nothing more is written.
    package private(set) var failure: Failure?

    /// A writer to an open file descriptor it does not own (the caller closes it). `destination` names
    /// it in error messages.
    package init(fileDescriptor: Int32, destination: String, capacity: Int = OutputWriter.defaultCapacity) {
        self.fileDescriptor = fileDescriptor
        self.destination = destination
        self.capacity = max(1, capacity)
        buffer.reserveCapacity(self.capacity)
    }

    /// A writer that keeps everything in memory (read back with `bytes` or `text`).
    package init() {
        fileDescriptor = nil
        destination = "memory"
        capacity = Int.max
    }

    // MARK: - Appending

    /// Appends a string's UTF-8 bytes.
    package func write(_ string: String) throws {
        try check()
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= capacity { try flushBuffer() }
    }

    /// Appends one byte.
    package func write(byte: UInt8) throws {
        try check()
        buffer.append(byte)
        if buffer.count >= capacity { try flushBuffer() }
    }

    /// Appends `count` copies of one byte (a table's padding).
    package func write(repeating byte: UInt8, count: Int) throws {
        try check()
        guard count > 0 else { return }
        buffer.append(contentsOf: repeatElement(byte, count: count))
        if buffer.count >= capacity { try flushBuffer() }
    }

    /// Appends what `format` writes into a scratch space of `maxCount` bytes (it returns how many it
    /// wrote, or nil to write nothing and say so): numbers are formatted here without a String.
    @discardableResult
    package func append(maxCount: Int, _ format: (UnsafeMutablePointer<UInt8>) -> Int?) throws -> Bool {
        try check()
        let wrote = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { scratch -> Bool in
            guard let base = scratch.baseAddress, let count = format(base) else { return false }
            buffer.append(contentsOf: UnsafeBufferPointer(start: base, count: min(count, maxCount)))
            return true
        }
        if buffer.count >= capacity { try flushBuffer() }
        return wrote
    }

    /// Appends bytes; a run larger than the buffer goes to the descriptor without being copied.
    package func write(contentsOf bytes: UnsafeRawBufferPointer) throws {
        try check()
        if fileDescriptor != nil, bytes.count >= capacity {
            try flushBuffer()
            try writeAll(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flushBuffer() }
    }

    /// Appends a collection of bytes (`[UInt8]`, `Data`, a slice).
    package func write<Bytes: Collection>(contentsOf bytes: Bytes) throws where Bytes.Element == UInt8 {
        let handled: Void? = try bytes.withContiguousStorageIfAvailable {
            try write(contentsOf: UnsafeRawBufferPointer($0))
        }
        if handled == nil { try Array(bytes).withUnsafeBytes { try write(contentsOf: $0) } }
    }

    /// Writes whatever is buffered to the descriptor.
    package func flush() throws {
        try check()
        try flushBuffer()
    }

    /// Throws the remembered failure, if a write already failed.
    package func check() throws {
        if let failure { throw failure }
    }

    /// A `TextOutputStream` view for formatters written against one (JSONValue): its writes cannot
    /// throw, so a failure is remembered by the writer and thrown by the next `check()`.
    package var textStream: TextStream { TextStream(writer: self) }

    /// See `textStream`.
    package struct TextStream: TextOutputStream {
        let writer: OutputWriter
        package mutating func write(_ string: String) { try? writer.write(string) }
    }

    // MARK: - In memory

    /// Everything written to an in-memory writer.
    package var bytes: [UInt8] { captured + buffer }

    /// How many bytes an in-memory writer holds (without copying them, as `bytes` does).
    package var byteCount: Int { captured.count + buffer.count }

    /// Everything written to an in-memory writer, as text.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: - System calls

    private func flushBuffer() throws {
        guard !buffer.isEmpty else { return }
        guard fileDescriptor != nil else {
            captured.append(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
            return
        }
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try writeAll($0) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard let fileDescriptor, let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(fileDescriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let failure = Failure(destination: destination, code: errno)
                self.failure = failure
                throw failure
            }
            if written == 0 {
                // write(2) never returns 0 for a non-zero count on a working descriptor; don't spin.
                let failure = Failure(destination: destination, code: EIO)
                self.failure = failure
                throw failure
            }
            offset += written
        }
    }
}

/// `write(2)`, named apart from the writer's own `write` methods.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        return Darwin.write(descriptor, bytes, count)
    #elseif canImport(Glibc)
        return Glibc.write(descriptor, bytes, count)
    #else
        return Musl.write(descriptor, bytes, count)
    #endif
}
