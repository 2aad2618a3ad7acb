import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The arguments of `metrika-fake-api`, parsed here so `main.swift` stays thin and this is testable.
package struct CommandLineOptions: Sendable {
    /// The port to bind (0 = any free port).
    package var port: UInt16 = 0
    /// Everything the simulator itself needs.
    package var simulator: SimulatorOptions
    /// `--help` was given.
    package var showHelp = false
    /// `--parent-pid N`: exit when the process that started this one is gone (tests pass their own pid).
    package var parentPID: Int32?

    /// The text `--help` prints.
    package static let usage = """
        usage: metrika-fake-api [--port N] [--fixtures DIR] [--now 2026-06-15T12:00:00Z]
                                [--device-interval N] [--device-pending N] [--logs-ready-polls N]
                                [--logs-rows-per-day N] [--logs-part-rows N] [--logs-max-days N] [--logs-quirks LIST]
                                [--quotas] [--parent-pid PID]
          --port N              port on 127.0.0.1 (default 0: pick a free one)
          --fixtures DIR        fixture directory (default: $METRIKA_FAKE_FIXTURES, else Fixtures/default)
          --now INSTANT         freeze the simulator's clock (ISO 8601)
          --device-interval N   polling interval the device flow announces, seconds (default 5)
          --device-pending N    polls answered authorization_pending before success (default 2)
          --logs-ready-polls N  info polls a log request stays 'created' (default 2)
          --logs-rows-per-day N rows per day of every log request (default: the traffic model)
          --logs-part-rows N    rows per log part (default 200000)
          --logs-max-days N     max_possible_day_quantity of evaluate (default 366)
          --logs-quirks LIST    real-world shapes of log parts: all, escaped_array_quotes, csv_quoted_array,
                                header_order, crlf, bom, no_final_newline, broken_row (docs/simulator.md)
          --quotas              enforce each login's quotas with the API's 429 answers (also METRIKA_FAKE_QUOTAS=1)
          --parent-pid PID      exit 0 once this process's parent is no longer PID (the test run that started it died)
          --telegram            serve the Telegram Bot API instead (metrika-fake-api --telegram --help)
        The first line on stdout is `listening on http://127.0.0.1:PORT`.
        """

    /// A message for an argument the program cannot use.
    package struct UsageError: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    /// Parses `arguments` (without the program name).
    package static func parse(
        _ arguments: [String], environment: [String: String], defaultFixtures: URL
    ) throws(UsageError) -> CommandLineOptions {
        let fixtures = SimulatorOptions.fixturesDirectory(fromEnvironment: environment) ?? defaultFixtures
        var options = CommandLineOptions(simulator: SimulatorOptions(fixturesDirectory: fixtures))
        options.simulator.quotas = environment["METRIKA_FAKE_QUOTAS"] == "1"
        var index = 0
        func value(for flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(flag) needs a value") }
            return arguments[index]
        }
        func integer(for flag: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(for: flag)
            guard let n = Int(text), range.contains(n) else {
                throw UsageError(
                    description: "\(flag) must be an integer in \(range.lowerBound)...\(range.upperBound), not \(text)")
            }
            return n
        }
        while index < arguments.count {
            var argument = arguments[index]
            // Accept --flag=value as well as --flag value.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                let flagPart = String(argument[..<equals])
                let valuePart = String(argument[argument.index(after: equals)...])
                var expanded = arguments
                expanded.replaceSubrange(index...index, with: [flagPart, valuePart])
                return try parse(expanded, environment: environment, defaultFixtures: defaultFixtures)
            }
            switch argument {
            case "--port": options.port = UInt16(try integer(for: argument, in: 0...65535))
            case "--fixtures":
                options.simulator.fixturesDirectory = URL(fileURLWithPath: try value(for: argument), isDirectory: true)
            case "--now":
                let text = try value(for: argument)
                guard let date = SimulatorOptions.parseInstant(text) else {
                    throw UsageError(
                        description: "--now must be an ISO 8601 instant such as 2026-06-15T12:00:00Z, not \(text)")
                }
                options.simulator.now = date
            case "--device-interval": options.simulator.deviceInterval = try integer(for: argument, in: 0...3600)
            case "--device-pending": options.simulator.devicePendingPolls = try integer(for: argument, in: 0...1000)
            case "--logs-ready-polls": options.simulator.logsReadyPolls = try integer(for: argument, in: 1...1000)
            case "--logs-rows-per-day":
                options.simulator.logsRowsPerDay = try integer(for: argument, in: 0...100_000_000)
            case "--logs-part-rows": options.simulator.logsPartRows = try integer(for: argument, in: 1...100_000_000)
            case "--logs-max-days": options.simulator.logsMaxDays = try integer(for: argument, in: 1...366)
            case "--logs-quirks":
                let text = try value(for: argument)
                for name in text.split(separator: ",").map(String.init) {
                    if name == "all" {
                        options.simulator.logsQuirks.formUnion(LogsQuirk.allCases.filter { $0 != .brokenRow })
                    } else if let quirk = LogsQuirk(rawValue: name) {
                        options.simulator.logsQuirks.insert(quirk)
                    } else {
                        throw UsageError(
                            description:
                                "--logs-quirks: unknown quirk \(name) (known: all, \(LogsQuirk.allCases.map(\.rawValue).joined(separator: ", ")))"
                        )
                    }
                }
            case "--quotas": options.simulator.quotas = true
            case "--parent-pid": options.parentPID = Int32(try integer(for: argument, in: 1...Int(Int32.max)))
            case "--help", "-h": options.showHelp = true
            default:
                argument = argument.isEmpty ? "(empty)" : argument
                throw UsageError(description: "unknown argument \(argument)")
            }
            index += 1
        }
        return options
    }
}

/// Writes straight to file descriptor 1, unbuffered, so the "listening on" line is visible at once.
package func writeStandardOutput(_ text: String) {
    writeAll(Array(text.utf8), to: 1)
}

/// Writes straight to file descriptor 2.
package func writeStandardError(_ text: String) {
    writeAll(Array(text.utf8), to: 2)
}

private func writeAll(_ bytes: [UInt8], to fd: Int32) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
