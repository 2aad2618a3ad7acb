import Foundation
import Testing

/// A standard output closed before metrika starts (`metrika … >&-`, issue 40 item 14): one line that
/// says it is closed, exit 74 — never `Invalid argument` (a descriptor opened later landed on fd 1).
@Suite(.blockingLanes)
struct ClosedStdoutEndToEndTests {
    @Test(arguments: [["--help"], ["report", "--help"], ["completions", "bash"]])
    func aClosedStdoutIsSaidToBeClosed(arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" \"$@\" >&-", Binaries.metrika] + arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        process.standardInput = FileHandle.nullDevice
        let errPipe = Pipe()
        process.standardError = errPipe
        try process.run()
        let stderr = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 74, "\(stderr)")
        #expect(
            stderr
                == "Error: cannot write to standard output: it is closed (redirect it to a file or /dev/null instead)\n"
        )
    }
}
