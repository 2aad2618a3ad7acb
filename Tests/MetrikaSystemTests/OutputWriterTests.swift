import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaSystem

@Suite("Output writer", .ownThreads)
struct OutputWriterTests {
    @Test func memoryKeepsEveryByteInOrder() throws {
        let out = OutputWriter()
        try out.write("Ромашка, ")
        try out.write(byte: 0x22)
        try out.write(contentsOf: [UInt8]("😀\n".utf8))
        try out.write(contentsOf: Data([0xFF]))
        try out.flush()
        try out.write("tail")
        try out.write(repeating: 0x20, count: 3)
        try out.write(repeating: 0x2D, count: 0)
        #expect(out.bytes == Array("Ромашка, \"😀\n".utf8) + [0xFF] + Array("tail   ".utf8))
    }

    /// Bytes are held until the buffer is full, then written in one go: a report streams to the
    /// file as it is formatted, in large writes, never held whole.
    @Test func flushesInLargeWritesAsTheBufferFills() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out.csv").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        func size() throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
        }
        let out = OutputWriter(fileDescriptor: descriptor, destination: path, capacity: 4096)
        let row = "2026-11-01,купить ромашку,1234\n"
        try out.write(row)
        #expect(try size() == 0, "one row stays in the buffer")
        var written = row.utf8.count
        var streamed = true
        for _ in 0..<10_000 {
            try out.write(row)
            written += row.utf8.count
            let onDisk = try size()
            if onDisk > written || onDisk <= written - 4096 { streamed = false }
        }
        #expect(streamed, "the file grows in buffer-sized steps behind what was written")
        try out.flush()
        #expect(try size() == written)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == String(repeating: row, count: 10_001))
    }

    /// /dev/full fails every write with ENOSPC: the failure is thrown, remembered, and thrown again by
    /// every later call without another attempt.
    @Test func aFullDeviceIsExit74AndTheFailureSticks() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let out = OutputWriter(fileDescriptor: descriptor, destination: "standard output", capacity: 16)
        try out.write("short")
        let failure = try #require(throws: OutputWriter.Failure.self) {
            try out.write(String(repeating: "x", count: 100))
        }
        #expect(failure.code == ENOSPC)
        #expect(failure.exitCode == 74)
        #expect(!failure.isClosedPipe)
        #expect(failure.message == "cannot write to standard output: No space left on device")
        #expect(throws: failure) { try out.write(byte: 0x41) }
        #expect(throws: failure) { try out.flush() }
        #expect(out.failure == failure)
    }

    /// A reader that went away: EPIPE (SIGPIPE ignored, as metrika's main does), told apart so the
    /// command can end quietly with 141.
    @Test func aClosedPipeIsAQuietFailure() throws {
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        let out = OutputWriter(fileDescriptor: ends[1], destination: "standard output")
        try out.write("row\n")
        let failure = try #require(throws: OutputWriter.Failure.self) { try out.flush() }
        #expect(failure.isClosedPipe)
        #expect(failure.exitCode == 141)
    }

    /// A slow reader takes a pipe's bytes a little at a time: partial writes are continued until
    /// every byte arrived, in order.
    @Test func partialWritesAreContinued() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let total = 1 << 20
        let payload = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let reader = ends[0]
        // A plain thread, not a Task: the reader blocks in read(2).
        let box = ByteBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1000)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, 1000) }
                if count <= 0 { break }
                bytes += chunk[..<count]
                if bytes.count % 50_000 < 1000 { usleep(1000) }
            }
            close(reader)
            box.set(bytes)
            done.signal()
        }
        let out = OutputWriter(fileDescriptor: ends[1], destination: "pipe")
        try out.write(contentsOf: payload)
        try out.flush()
        close(ends[1])
        done.wait()
        #expect(box.bytes == payload)
    }
}

/// Bytes handed from a reader thread to the test.
final class ByteBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [UInt8] = []
    func set(_ bytes: [UInt8]) {
        lock.lock()
        stored = bytes
        lock.unlock()
    }
    var bytes: [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
