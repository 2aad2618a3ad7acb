import Foundation
import MetrikaTestSupport

/// A loopback peer written in Python under tests/scripts (smtp_sink.py, webhook_receiver.py): started
/// with the folder it keeps what it receives in and its lifetime in seconds, its port read from the line
/// it announces, and stopped — stdin closed, then killed and reaped (`ChildProcesses.end`) — by `stop()`
/// or when released. The one way the end-to-end tests run such a peer.
class ScriptPeer: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    let port: Int
    let directory: String

    init(script: String, directory: String, lifetime seconds: Int) throws {
        self.directory = directory
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", MailEndToEndTests.scripts.appendingPathComponent(script).path, directory, String(seconds)
        ]
        process.environment = MailEndToEndTests.toolEnvironment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        try process.run()
        ChildProcesses.register(process.processIdentifier)
        port = try readAnnouncedPort(of: process, from: output, name: script)
    }

    deinit { stop() }

    func stop() {
        try? input.fileHandleForWriting.close()
        ChildProcesses.end(process)
    }

    /// The names of the files the peer kept that end in `suffix`, sorted (arrival order).
    func kept(suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(suffix) }.sorted()
    }
}
