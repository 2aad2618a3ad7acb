import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaSystem

@Suite("Atomic file writing")
struct AtomicFileTests {
    @Test func writesAndReplacesWholeFilesLeavingNoTemporaries() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("chart.svg").path
        try AtomicFile.write(Data("first".utf8), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("first".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try AtomicFile.write(Data("second, longer".utf8), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("second, longer".utf8))
        let replaced = try FileManager.default.attributesOfItem(atPath: path)
        #expect((replaced[.posixPermissions] as? NSNumber)?.intValue == 0o600, "a replaced file keeps its mode")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["chart.svg"])
    }

    @Test func aMissingDirectoryIsExit73NamingThePath() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("no/such/dir/chart.svg").path
        let error = try #require(throws: AtomicFile.WriteError.self) { try AtomicFile.write(Data("x".utf8), to: path) }
        #expect(error.exitCode == 73)
        #expect(error.message == "cannot write \(path): No such file or directory")
    }

    @Test func aDirectoryInTheWayIsExit73AndLeavesNothingBehind() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        let error = try #require(throws: AtomicFile.WriteError.self) {
            try AtomicFile.write(Data("x".utf8), to: target.path)
        }
        #expect(error.exitCode == 73)
        #expect(error.message.contains("is a directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken"])
    }

    @Test func anUnwritableDirectoryIsExit73() throws {
        // Root ignores directory permissions; /proc refuses new files for everyone.
        let error = try #require(throws: AtomicFile.WriteError.self) {
            try AtomicFile.write(Data("x".utf8), to: "/proc/metrika-chart.svg")
        }
        #expect(error.exitCode == 73)
        #expect(error.path == "/proc/metrika-chart.svg")
    }
}

/// Atomic replace is for regular files: devices and FIFOs are written into, never replaced; modes
/// never carry setuid/setgid; new files follow the umask.
@Suite("Atomic file writing: devices, FIFOs, modes", .ownThreads)
struct AtomicFileNodeTests {
    static func kind(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    /// A full device of our own (c 1 7, like /dev/full) in a temp dir: tests never risk the real
    /// /dev nodes. Written into, ENOSPC, exit 73, and still a device.
    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func aFullDeviceIsWrittenIntoAndStaysADevice() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = directory.appendingPathComponent("full").path
        // Linux's encoding of a small major/minor pair (glibc's makedev is a macro Swift cannot import).
        try #require(mknod(node, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0)
        let error = try #require(throws: AtomicFile.WriteError.self) {
            try AtomicFile.write(Data("<svg/>".utf8), to: node)
        }
        #expect(error.exitCode == 74, "out of room: an I/O error")
        #expect(error.message == "cannot write \(node): No space left on device")
        #expect(Self.kind(node) == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["full"])
    }

    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func aCharacterDeviceNodeIsNotReplaced() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = directory.appendingPathComponent("null-device").path
        // c 1 3 is /dev/null's major/minor: a harmless device of our own, in a temp dir.
        try #require(mknod(node, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
        try AtomicFile.write(Data("<svg/>".utf8), to: node)
        #expect(Self.kind(node) == S_IFCHR, "the device node survives")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["null-device"])
    }

    @Test func aFIFOIsWrittenIntoForItsReader() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("chart.fifo").path
        try #require(mkfifo(fifo, 0o644) == 0)
        // A plain thread, not a Task: opening a FIFO blocks until the writer comes.
        let box = ByteBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let handle = FileHandle(forReadingAtPath: fifo)
            box.set([UInt8](handle?.readDataToEndOfFile() ?? Data()))
            try? handle?.close()
            done.signal()
        }
        let payload = Data(String(repeating: "<path d=\"M0 0\"/>\n", count: 10_000).utf8)
        try AtomicFile.write(payload, to: fifo)
        done.wait()
        #expect(Data(box.bytes) == payload)
        #expect(Self.kind(fifo) == S_IFIFO, "the FIFO is still a FIFO")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["chart.fifo"])
    }

    @Test func aSetuidFileLosesSetuidAndSetgidButKeepsItsOtherBits() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("chart.svg").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try #require(chmod(path, 0o6777) == 0)
        try #require(Self.mode(path) == 0o6777)
        try AtomicFile.write(Data("new".utf8), to: path)
        #expect(Self.mode(path) == 0o777)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        try #require(chmod(path, 0o1640) == 0)
        try AtomicFile.write(Data("newer".utf8), to: path)
        #expect(Self.mode(path) == 0o640, "no sticky bit either")
    }

    @Test func aLinkToAFileKeepsTheLinkAndReplacesTheFile() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("real.svg").path
        let link = directory.appendingPathComponent("link.svg").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try AtomicFile.write(Data("new".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new")
    }

    @Test func aSocketIsRefusedWith73() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.sock").path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
        let error = try #require(throws: AtomicFile.WriteError.self) { try AtomicFile.write(Data("x".utf8), to: path) }
        #expect(error.exitCode == 73)
        #expect(error.message.contains("is a socket"))
        #expect(Self.kind(path) == S_IFSOCK)
    }

    /// A file that cannot be created is 73; a write that runs out of room or hits a device error is an
    /// I/O error, 74, as on standard output.
    @Test func runningOutOfRoomIsAnIOErrorAndNotBeingAbleToCreateIsNot() {
        #expect(AtomicFile.WriteError(path: "/x", errorNumber: ENOSPC).exitCode == 74)
        #expect(AtomicFile.WriteError(path: "/x", errorNumber: EIO).exitCode == 74)
        #expect(AtomicFile.WriteError(path: "/x", errorNumber: EACCES).exitCode == 73)
        #expect(AtomicFile.WriteError(path: "/x", reason: "is a directory").exitCode == 73)
        #expect(
            AtomicFile.WriteError(path: "/x", errorNumber: ENOSPC).message == "cannot write /x: No space left on device"
        )
    }
}
