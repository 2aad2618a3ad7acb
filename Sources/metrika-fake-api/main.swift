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
    .deletingLastPathComponent()  // metrika-fake-api
    .deletingLastPathComponent()  // Sources
    .deletingLastPathComponent()  // repository root
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

let server: HTTPServer
do {
    let simulator = try Simulator(options: invocation.simulator)
    server = HTTPServer(handler: { simulator.handle($0) })
    let port = try server.start(port: invocation.port)
    writeStandardOutput("listening on http://127.0.0.1:\(port)\n")
} catch {
    writeStandardError("metrika-fake-api: \(error)\n")
    exit(69)
}

// SIGTERM and SIGINT stop the server and exit 0. Dispatch receives them whichever thread they hit.
var stopSources: [any DispatchSourceSignal] = []
for stopSignal in [SIGTERM, SIGINT] {
    signal(stopSignal, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: stopSignal, queue: .main)
    source.setEventHandler {
        MainActor.assumeIsolated {
            server.stop()
            exit(0)
        }
    }
    source.resume()
    stopSources.append(source)
}
dispatchMain()

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
    let botServer = HTTPServer(handler: { simulator.handle($0) })
    do {
        let port = try botServer.start(port: options.port)
        writeStandardOutput("listening on http://127.0.0.1:\(port)\n")
    } catch {
        writeStandardError("metrika-fake-api: \(error)\n")
        exit(69)
    }
    // SIGTERM and SIGINT stop it and exit 0; the sources live as long as the process (dispatchMain never returns).
    var signalSources: [any DispatchSourceSignal] = []
    for stopSignal in [SIGTERM, SIGINT] {
        signal(stopSignal, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: stopSignal, queue: .main)
        source.setEventHandler {
            botServer.stop()
            exit(0)
        }
        source.resume()
        signalSources.append(source)
    }
    withExtendedLifetime(signalSources) { dispatchMain() }
}
