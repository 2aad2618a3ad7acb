import Foundation
import MetrikaSimulator

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// metrika-fake-api: the simulated Yandex.Metrika API on 127.0.0.1. Thin on purpose: parse the
// arguments, start the server from MetrikaSimulator, wait for SIGTERM/SIGINT.

let defaultFixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent() // metrika-fake-api
    .deletingLastPathComponent() // Sources
    .deletingLastPathComponent() // repository root
    .appendingPathComponent("Fixtures/default", isDirectory: true)

let arguments = Array(CommandLine.arguments.dropFirst())
// `--telegram` serves the Telegram Bot API instead (MetrikaSimulator/Telegram, docs/simulator.md).
if BotCommandLine.wanted(arguments) { serveTelegramBotAPI(arguments) }
let invocation: CommandLineOptions
do {
    invocation = try CommandLineOptions.parse(
        arguments, environment: ProcessInfo.processInfo.environment, defaultFixtures: defaultFixtures)
} catch {
    writeStandardError("metrika-fake-api: \(error)\n\(CommandLineOptions.usage)\n")
    exit(64)
}
if invocation.showHelp {
    writeStandardOutput(CommandLineOptions.usage + "\n")
    exit(0)
}

do {
    let simulator = try Simulator(options: invocation.simulator)
    serve(port: invocation.port, parentPID: invocation.parentPID) { simulator.handle($0) }
} catch {
    writeStandardError("metrika-fake-api: \(error)\n")
    exit(69)
}

/// Starts the server on 127.0.0.1, says where, and serves until SIGTERM or SIGINT, which stop it
/// and exit 0 (Dispatch receives them whichever thread they hit), or, with `parentPID`, until the
/// process that started it is gone (a test run killed with SIGKILL leaves no simulator behind). Never returns.
func serve(port: UInt16, parentPID: Int32?, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) -> Never {
    let server = HTTPServer(handler: handler)
    do {
        let bound = try server.start(port: port)
        writeStandardOutput("listening on http://127.0.0.1:\(bound)\n")
    } catch {
        writeStandardError("metrika-fake-api: \(error)\n")
        exit(69)
    }
    var stopSources: [any DispatchSourceSignal] = []
    for stopSignal in [SIGTERM, SIGINT] {
        signal(stopSignal, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: stopSignal, queue: .main)
        source.setEventHandler {
            server.stop()
            exit(0)
        }
        source.resume()
        stopSources.append(source)
    }
    if let parentPID { exitWhenOrphaned(parentPID: parentPID, server: server) }
    // The sources live as long as the process: dispatchMain never returns.
    withExtendedLifetime(stopSources) { dispatchMain() }
}

/// Polls the parent on a thread of its own, 4 times a second: once the parent is not `parentPID` (it
/// died and this process was handed to init or a subreaper), stops the server and exits 0. Polling
/// `getppid()` rather than `PR_SET_PDEATHSIG`: that fires when the *thread* that spawned the child
/// ends, and a test's spawning thread is a pool thread that may end while the test run goes on.
func exitWhenOrphaned(parentPID: Int32, server: HTTPServer) {
    let watcher = Thread {
        while getppid() == parentPID { usleep(250_000) }
        server.stop()
        exit(0)
    }
    watcher.start()
}

/// `metrika-fake-api --telegram …`: starts the Bot API simulator and never returns.
func serveTelegramBotAPI(_ arguments: [String]) -> Never {
    let options: BotCommandLine
    do {
        options = try BotCommandLine.parse(arguments)
    } catch {
        writeStandardError("metrika-fake-api: \(error)\n\(BotCommandLine.usage)\n")
        exit(64)
    }
    if options.showHelp {
        writeStandardOutput(BotCommandLine.usage + "\n")
        exit(0)
    }
    let simulator = BotAPISimulator(token: options.token, username: options.username)
    serve(port: options.port, parentPID: options.parentPID) { simulator.handle($0) }
}
