import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaModel
@testable import MetrikaSystem

/// `Sendmail`, the one delivery of `metrika mail` and `alert --mail`: the message reaches the program
/// on its stdin with `-t -i`, and a program that fails, hangs or cannot start is one line and exit 69.
@Suite struct SendmailTests {
    /// A sendmail written for the test: `script` runs with the message on stdin.
    static func program(_ script: String) throws -> (path: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-sendmail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("sendmail").path
        // Written by a child `sh`, never opened for writing here: another test's fork at that moment
        // would hold the descriptor and running it would fail with ETXTBSY (seen in a full run).
        try ExecutableFile.write("#!/bin/sh\n\(script)\n", to: path)
        return (path, folder)
    }

    @Test func theMessageReachesSendmailWithItsArguments() async throws {
        let (path, folder) = try Self.program(
            #"echo "$@" > "$(dirname "$0")/arguments"; cat > "$(dirname "$0")/message""#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sendmail = Sendmail(path: path)
        #expect(sendmail.isInstalled)
        try await sendmail.deliver(
            Data("To: a@b\n\nhello\n.\nmore\n".utf8),
            environment: ["PATH": "/usr/bin:/bin", "METRIKA_TOKEN": "y0_secret"])
        #expect(try String(contentsOf: folder.appendingPathComponent("arguments"), encoding: .utf8) == "-t -i\n")
        #expect(
            try String(contentsOf: folder.appendingPathComponent("message"), encoding: .utf8)
                == "To: a@b\n\nhello\n.\nmore\n")
    }

    @Test func aFailingSendmailSaysWhatItSaid() async throws {
        let (path, folder) = try Self.program("cat >/dev/null; echo 'no route to host' >&2; exit 75")
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await #expect(throws: SendmailError.self) {
            try await Sendmail(path: path).deliver(Data("x".utf8), environment: [:])
        }
        #expect(error == .failed(path: path, ending: "exit status 75", said: "no route to host"))
        #expect(error?.message == "\(path) failed (exit status 75): no route to host; the mail was not sent")
        #expect(error?.exitCode == ExitCode.unavailable)
    }

    @Test func aHangingSendmailIsStoppedAtItsTimeLimit() async throws {
        let (path, folder) = try Self.program("sleep 30")
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await #expect(throws: SendmailError.self) {
            try await Sendmail(path: path, timeout: 0.5).deliver(Data(), environment: [:])
        }
        #expect(error == .timedOut(path: path, seconds: 0))
        #expect(
            error?.message.hasSuffix("did not finish within 0 s and was stopped; the mail may not have been sent")
                == true)
    }

    @Test func aSendmailThatCannotStartIsNamed() async {
        let sendmail = Sendmail(path: "/nonexistent/sendmail")
        #expect(!sendmail.isInstalled)
        let error = await #expect(throws: SendmailError.self) { try await sendmail.deliver(Data(), environment: [:]) }
        #expect(error?.message.hasPrefix("cannot start /nonexistent/sendmail: ") == true)
        #expect(error?.exitCode == ExitCode.unavailable)
    }

    @Test func thePathComesFromTheOptionThenTheEnvironment() {
        #expect(Sendmail.path(given: "/opt/sm", environment: ["METRIKA_SENDMAIL": "/x"]) == "/opt/sm")
        #expect(Sendmail.path(given: nil, environment: ["METRIKA_SENDMAIL": "/x"]) == "/x")
        #expect(Sendmail.path(given: nil, environment: ["METRIKA_SENDMAIL": ""]) == "/usr/sbin/sendmail")
    }
}
