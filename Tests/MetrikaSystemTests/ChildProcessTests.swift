import Foundation
import Testing
@testable import MetrikaSystem

/// `ChildProcess`, the one runner of the programs metrika hands bytes to (rsvg-convert, sendmail):
/// input arrives, a hanging child is killed at its time limit, a flood is cut without hanging, and
/// what it says becomes one clean line.
@Suite struct ChildProcessTests {
    static func shell(_ script: String, timeout: Double = 10, maximumOutput: Int = 1 << 20, stops: Bool = false) -> ChildProcess {
        ChildProcess(program: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"],
                     timeout: timeout, maximumOutput: maximumOutput, stopsOnOutputOverflow: stops)
    }

    @Test func theInputReachesTheChildAndItsAnswerComesBack() throws {
        let result = try Self.shell("tr a-z A-Z").run(input: Data("mail body\n".utf8))
        #expect(result.succeeded && !result.timedOut)
        #expect(String(decoding: result.output, as: UTF8.self) == "MAIL BODY\n")
    }

    /// A sendmail that never returns (a stuck SMTP server) must not hold a cron job forever.
    @Test func aHangingChildIsKilledAtItsTimeLimit() throws {
        let started = Date()
        let result = try Self.shell("cat >/dev/null; sleep 30", timeout: 0.5).run(input: Data("x".utf8))
        #expect(result.timedOut && !result.succeeded)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// More output than the limit is read and dropped (the child is not blocked on a full pipe) unless
    /// the output is the product, when the child is stopped.
    @Test(arguments: [false, true])
    func aFloodIsCut(stops: Bool) throws {
        let result = try Self.shell("head -c 3000000 /dev/zero", maximumOutput: 1000, stops: stops).run(input: Data())
        #expect(result.output.count == 1000 && result.outputOverflowed)
        #expect(result.succeeded != stops)
    }

    /// The one environment rule: whatever a caller passes, no `METRIKA_` variable (the token, the
    /// OAuth app's secret, the ClickHouse password, a webhook URL) reaches the child; the rest does.
    @Test func noMetrikaVariableReachesAChild() throws {
        let given = [
            "PATH": "/usr/bin:/bin", "HOME": "/home/someone", "LANG": "C.UTF-8",
            "METRIKA_TOKEN": "y0_token-value", "METRIKA_CLIENT_SECRET": "app-secret",
            "METRIKA_CLICKHOUSE_PASSWORD": "ch-password", "METRIKA_WEBHOOK_URL": "https://hooks.example/T0/secret",
            "METRIKA_API_URL": "http://127.0.0.1:1",
        ]
        let child = ChildProcess(program: "/usr/bin/env", arguments: [], environment: given, timeout: 10)
        #expect(child.environment.keys.sorted() == ["HOME", "LANG", "PATH"])
        let seen = String(decoding: try child.run(input: Data()).output, as: UTF8.self)
        let names = Set(seen.split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        #expect(names.isSuperset(of: ["HOME", "LANG", "PATH"]), "\(seen)")
        #expect(!names.contains { $0.hasPrefix("METRIKA_") }, "\(seen)")
        for secret in ["y0_token-value", "app-secret", "ch-password", "hooks.example"] {
            #expect(!seen.contains(secret), "\(secret) reached the child")
        }
    }

    @Test func aProgramThatCannotStartIsALaunchFailure() {
        let child = ChildProcess(program: "/nonexistent/sendmail", arguments: [], environment: [:], timeout: 1)
        #expect(throws: ChildProcess.LaunchFailure.self) { try child.run(input: Data()) }
    }

    @Test func whatTheChildSaidIsOneCleanLine() {
        let said = ChildProcess.summary(of: Data("  first\u{1B}[2J line\n\n second\u{202E}\n".utf8))
        #expect(said == "first[2J line / second")
        #expect(ChildProcess.summary(of: Data(String(repeating: "a", count: 1000).utf8)).count == 300)
    }
}
