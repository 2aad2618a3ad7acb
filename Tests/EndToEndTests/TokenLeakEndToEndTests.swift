import Foundation
import MetrikaAPI
import MetrikaTestSupport
import Testing

/// Runs the suite's commands with known tokens (a fixture token, a wrong one, and the tokens the
/// device flow and a refresh issue) and greps every stdout, stderr, every file under the test's HOME
/// (token file, history database and its journals) and every URL the simulator saw: zero hits.
@Suite("No token leaks", .blockingLanes)
struct TokenLeakEndToEndTests {
    /// Every output of every run, kept for the final grep.
    final class Transcript: @unchecked Sendable {
        private(set) var outputs: [(label: String, text: String)] = []
        func add(_ label: String, _ result: ProcessResult) {
            outputs.append((label + " stdout", result.stdout))
            outputs.append((label + " stderr", result.stderr))
        }
    }

    /// Files under `root` whose bytes contain `needle`, as paths relative to `root`.
    static func files(under root: String, containing needle: String) -> [String] {
        let bytes = Data(needle.utf8)
        var hits: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return hits }
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            if data.range(of: bytes) != nil { hits.append(relative) }
        }
        return hits.sorted()
    }

    @Test func theTokenNeverLeaks() throws {
        let api = try FakeAPI(arguments: ["--device-interval", "1", "--device-pending", "1"])
        let home = try TemporaryDirectory()
        let transcript = Transcript()
        let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]
        let badToken = "bad-token-0123456789abcdef"
        var needles = [demoToken, badToken]
        func run(_ arguments: [String], token: String? = nil, extra: [String: String] = [:], stdin: String? = nil)
            throws -> ProcessResult
        {
            // A token must never have to be passed as an argument: check the test itself obeys that too.
            for argument in arguments { #expect(!needles.contains(argument)) }
            let result = try metrika(
                arguments, environment: metrikaEnvironment(api: api, home: home.path, token: token, extra: extra),
                stdin: stdin, timeout: 90)
            transcript.add(arguments.joined(separator: " "), result)
            return result
        }

        // With METRIKA_TOKEN: the data commands, quiet and verbose.
        #expect(try run(["counters"], token: demoToken).status == 0)
        #expect(try run(["counters", "--verbose", "--json"], token: demoToken).status == 0)
        _ = try run(["report", "--counter", "1001", "--verbose"], token: demoToken)
        _ = try run(["report", "--counter", "1001", "--csv"], token: demoToken)
        _ = try run(["sync", "--counter", "1001", "--verbose"], token: demoToken)
        _ = try run(["cache", "info"], token: demoToken)
        #expect(try run(["auth", "status", "--verbose"], token: demoToken).status == 0)

        // A wrong token: the errors name the problem, not the token.
        #expect(try run(["counters", "--verbose"], token: badToken).status == 77)
        #expect(try run(["auth", "status"], token: badToken).status == 77)
        _ = try run(["report", "--counter", "1001", "--verbose"], token: badToken)

        // A pasted token, then commands signed by the token file.
        #expect(try run(["login", "--token-stdin", "--verbose"], stdin: demoToken + "\n").status == 0)
        #expect(try run(["auth", "status", "--verbose"]).status == 0)
        #expect(try run(["counters", "--verbose"]).status == 0)

        // The device flow; then a refresh, forced by moving the expiry close.
        #expect(try run(["login", "--verbose"], extra: app).status == 0)
        let tokenFile = TokenFile(path: home.path + "/config/metrika/token.json")
        var issued = try tokenFile.read()
        needles.append(issued.accessToken)
        needles.append(try #require(issued.refreshToken))
        #expect(try run(["counters", "--verbose"], extra: app).status == 0)
        issued.expiresAt = TestClock.date.addingTimeInterval(86_400)
        try tokenFile.write(issued)
        #expect(try run(["counters", "--verbose"], extra: app).status == 0)
        let renewed = try tokenFile.read()
        #expect(renewed.accessToken != issued.accessToken)
        needles.append(renewed.accessToken)
        if let refresh = renewed.refreshToken { needles.append(refresh) }
        #expect(try run(["auth", "status", "--verbose"], extra: app).status == 0)
        _ = try run(["report", "--counter", "1001", "--verbose"], extra: app)

        // Positive control: the grep does find a token where one belongs (the token file), and only there.
        #expect(Self.files(under: home.path, containing: renewed.accessToken) == ["config/metrika/token.json"])

        #expect(try run(["logout", "--verbose"], extra: app).status == 0)
        #expect(try run(["logout", "--verbose"], extra: app).status == 0)

        for needle in Array(Set(needles)) + ["demo-secret"] {
            let masked = TokenMask.mask(needle)
            #expect(
                Self.files(under: home.path, containing: needle).isEmpty, "a file under HOME holds the token \(masked)")
            for (label, text) in transcript.outputs where text.contains(needle) {
                Issue.record("\(label) contains the token \(masked)")
            }
            for entry in try api.requests() {
                let url = "\(entry["path"] ?? "")?\(entry["query"] ?? "")"
                #expect(!url.contains(needle), "a URL carried the token \(masked)")
            }
        }
        // The runs did produce output to grep (a silent binary would pass vacuously).
        #expect(transcript.outputs.count == 40)
        #expect(transcript.outputs.map(\.text.count).reduce(0, +) > 2_000)
    }
}
