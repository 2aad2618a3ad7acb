import Foundation
import Testing
@testable import MetrikaKit

@Suite("Atomic file writing")
struct AtomicFileTests {
    @Test func writesAndReplacesWholeFilesLeavingNoTemporaries() throws {
        let directory = try ChartTestSupport.temporaryDirectory()
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
        let directory = try ChartTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("no/such/dir/chart.svg").path
        let error = try #require(throws: AtomicFile.WriteError.self) { try AtomicFile.write(Data("x".utf8), to: path) }
        #expect(error.exitCode == 73)
        #expect(error.message == "cannot write \(path): No such file or directory")
    }

    @Test func aDirectoryInTheWayIsExit73AndLeavesNothingBehind() throws {
        let directory = try ChartTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        let error = try #require(throws: AtomicFile.WriteError.self) { try AtomicFile.write(Data("x".utf8), to: target.path) }
        #expect(error.exitCode == 73)
        #expect(error.message.contains("is a directory"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["taken"])
    }

    @Test func anUnwritableDirectoryIsExit73() throws {
        // Root ignores directory permissions; /proc refuses new files for everyone.
        let error = try #require(throws: AtomicFile.WriteError.self) { try AtomicFile.write(Data("x".utf8), to: "/proc/metrika-chart.svg") }
        #expect(error.exitCode == 73)
        #expect(error.path == "/proc/metrika-chart.svg")
    }
}
