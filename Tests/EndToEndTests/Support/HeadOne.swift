import Foundation

/// What `metrika … | head -1` left: the line the reader took, how metrika ended, what it said.
struct HeadOneResult {
    var line: String
    var exited: Bool
    var status: Int32
    var stderr: String
}

/// Runs the built `metrika` with `arguments` as `| head -1` would: reads its stdout up to the first
/// line end, closes the read end, and waits (at most `timeout` seconds, then SIGKILL) for it to end.
func metrikaHeadOne(_ arguments: [String], environment: [String: String], timeout: Double = 120) throws -> HeadOneResult
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Binaries.metrika)
    process.arguments = arguments
    process.environment = environment
    let outPipe = Pipe()
    let errPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    process.standardInput = FileHandle.nullDevice
    let exited = exitSignal(of: process)
    try process.run()
    let box = OutputBox()
    let drained = DispatchSemaphore(value: 0)
    let errors = errPipe.fileHandleForReading
    Thread {
        box.setErr(errors.readDataToEndOfFile())
        drained.signal()
    }.start()
    var line = Data()
    let reader = outPipe.fileHandleForReading
    while !line.contains(0x0A) {
        let chunk = reader.readData(ofLength: 1)
        if chunk.isEmpty { break }
        line.append(chunk)
    }
    try reader.close()
    if exited.wait(timeout: .now() + timeout) == .timedOut { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    drained.wait()
    return HeadOneResult(
        line: String(decoding: line, as: UTF8.self), exited: process.terminationReason == .exit,
        status: process.terminationStatus, stderr: String(decoding: box.err, as: UTF8.self))
}
