import Foundation
import MetrikaTestSupport

/// The built `metrika` started in the background, for tests that signal it mid-run: its output is
/// drained as it comes (a chatty child never blocks on a full pipe); `wait` collects it.
final class RunningMetrika: @unchecked Sendable {
    let process = Process()
    private let box = OutputBox()
    private let group = DispatchGroup()
    private let exited: DispatchSemaphore

    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: Binaries.metrika)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        exited = exitSignal(of: process)
        try process.run()
        ChildProcesses.register(process.processIdentifier)
        group.enter()
        onOwnThread { [box, group] in
            box.setOut(out.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        group.enter()
        onOwnThread { [box, group] in
            box.setErr(err.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
    }

    static func start(_ arguments: [String], environment: [String: String]) throws -> RunningMetrika {
        try RunningMetrika(arguments, environment: environment)
    }

    /// SIGTERM.
    func terminate() { signal(SIGTERM) }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit (SIGKILL past `timeout`) and returns what it printed.
    func wait(timeout: Double = 60) -> ProcessResult {
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        group.wait()
        return ProcessResult(
            status: process.terminationStatus, stdout: String(decoding: box.out, as: UTF8.self),
            stderr: String(decoding: box.err, as: UTF8.self), signaled: process.terminationReason == .uncaughtSignal)
    }
}
