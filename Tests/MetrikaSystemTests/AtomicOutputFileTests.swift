import Foundation
import Testing

@testable import MetrikaSystem

/// The streaming form of `AtomicFile` (used by `logs --output`): the old file stays whole until
/// `commit`, a discarded or dropped output leaves it and no temporary behind.
@Suite("Atomic output file, streamed")
struct AtomicOutputFileTests {
    @Test func theOldFileStaysUntilCommitAndADiscardLeavesItWhole() throws {
        let directory = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("visits.tsv").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        // 3 MB in 64 KiB chunks and odd small ones: more than the writer's buffer many times over.
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 65_536)
        var streamed = 0

        let discarded = try AtomicOutputFile(path: path)
        for index in 0..<48 {
            try discarded.write(contentsOf: index.isMultiple(of: 3) ? chunk[..<7] : chunk[...])
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n", "nothing visible before commit")
        discarded.discard()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["visits.tsv"])

        do {
            let dropped = try AtomicOutputFile(path: path)
            try dropped.write(contentsOf: chunk)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["visits.tsv"],
            "deinit removes the temporary")

        let committed = try AtomicOutputFile(path: path)
        for index in 0..<48 {
            let piece = index.isMultiple(of: 3) ? chunk[..<7] : chunk[...]
            try committed.write(contentsOf: piece)
            streamed += piece.count
        }
        try committed.commit()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.size] as? NSNumber)?.intValue == streamed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["visits.tsv"])
    }
}
