import Foundation
import MetrikaAPI
import MetrikaRender
import MetrikaTestSupport
import Testing

/// The transport drills of docs/reliability.md ("Hostile server"): the built `metrika` against a
/// `HostileServer` that redirects, sends an endless body or a gzip bomb, drips one byte at a time,
/// or speaks TLS with a certificate nobody trusts.
@Suite("Hostile server end to end", .serialized, .blockingLanes)
struct HostileServerEndToEndTests {
    /// The two commands every drill runs: the counter list, and a report (whose first request is the
    /// counter's metadata).
    static let commands: [[String]] = [
        ["counters", "--csv"],
        ["report", "--counter", "1001", "--from", "40daysAgo", "--to", "31daysAgo", "--csv"]
    ]

    static let counterList =
        #"{"rows":1,"counters":[{"id":4242,"name":"evil","site":"evil.example","status":"Active","permission":"own"}]}"#

    /// Lines of stderr that start with `Error: `.
    static func errorLines(_ result: ProcessResult) -> [String] {
        result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("Error: ") }
    }

    /// Runs `metrika` under `/usr/bin/time` when there is one, to read its peak resident memory (KiB).
    static func runMeasured(_ arguments: [String], environment: [String: String], timeout: Double = 120) throws -> (
        ProcessResult, peakKiB: Int?
    ) {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            return (try metrika(arguments, environment: environment, timeout: timeout), nil)
        }
        let report = NSTemporaryDirectory() + "metrika-rss-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: report) }
        let result = try runProcess(
            time, ["-o", report, "-f", "%M", Binaries.metrika] + arguments, environment: environment, timeout: timeout)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        let peak = text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last
        // /usr/bin/time is there: a run it did not measure is a failure, not a check quietly left out.
        guard let peak else { throw SimpleError("/usr/bin/time did not report the peak RSS (\(text.suffix(200)))") }
        return (result, peak)
    }

    /// Called last in a test that measured with `runMeasured`: without /usr/bin/time its memory bound
    /// went unchecked, and the run says so as a skip instead of passing quietly.
    static func reportUnmeasured(_ peak: Int?) throws {
        if peak == nil {
            try Test.cancel(
                "skipped in part: the peak RSS was not checked, /usr/bin/time is missing (apt-get install time, or run scripts/setup)"
            )
        }
    }

    // MARK: - Redirects

    @Test("A redirect from the API is refused; the token never reaches the target", arguments: [302, 307], [0, 1])
    func redirectFromTheAPI(status: Int, command: Int) throws {
        let home = try TemporaryDirectory()
        let target = try HostileServer(.answer(status: 200, body: Self.counterList))
        let redirector = try HostileServer(
            .redirect(status: status, location: target.baseURL + "/management/v1/counters"))
        let result = try metrika(
            Self.commands[command],
            environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_API_URL": redirector.baseURL]))
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let errors = Self.errorLines(result)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("redirect") == true)
        #expect(errors.first?.contains("127.0.0.1:\(target.port)") == true, "\(result.stderr)")
        #expect(target.requests.isEmpty, "the redirect target was asked: \(target.requests)")
        #expect(redirector.requests.count == 1, "a redirect is not transient: no retries")
        #expect(!result.stderr.contains(demoToken))
    }

    @Test("Token renewal does not accept an answer from a redirect target")
    func renewalIgnoresARedirect() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let evilGrant =
            #"{"access_token":"evil-token","refresh_token":"evil-refresh","expires_in":31536000,"token_type":"bearer"}"#
        let target = try HostileServer(.answer(status: 200, body: evilGrant))
        let redirector = try HostileServer(.redirect(status: 307, location: target.baseURL + "/token"))
        let tokenPath = home.path + "/config/metrika/token.json"
        let original = StoredToken(
            accessToken: demoToken, refreshToken: "the-refresh-token", obtainedAt: TestClock.date,
            expiresAt: TestClock.date.addingTimeInterval(10 * 86_400), clientID: "demo-client")
        try TokenFile(path: tokenPath).write(original, tightenDirectory: true)
        let environment = metrikaEnvironment(
            api: api, home: home.path, token: nil,
            extra: [
                "METRIKA_OAUTH_URL": redirector.baseURL, "METRIKA_CLIENT_ID": "demo-client",
                "METRIKA_CLIENT_SECRET": "demo-secret"
            ])
        let result = try metrika(["counters", "--csv"], environment: environment)
        // Renewal is best effort: the command runs on with the token it has.
        #expect(result.status == 0, "\(result.stderr)")
        #expect(redirector.requests.count == 1)
        #expect(target.requests.isEmpty, "the refresh token and client secret went to the redirect target")
        #expect(try TokenFile(path: tokenPath).read().accessToken == demoToken)
        #expect(result.stderr.contains("127.0.0.1:\(target.port)"), "\(result.stderr)")
    }

    @Test("Login refuses a redirect from the OAuth server")
    func loginRefusesARedirect() throws {
        let home = try TemporaryDirectory()
        let deviceCode =
            #"{"device_code":"dc","user_code":"EVIL","verification_url":"https://evil.example/device","interval":1,"expires_in":30}"#
        let target = try HostileServer(.answer(status: 200, body: deviceCode))
        let redirector = try HostileServer(.redirect(status: 302, location: target.baseURL + "/device/code"))
        let environment = metrikaEnvironment(
            api: nil, home: home.path, token: nil,
            extra: [
                "METRIKA_OAUTH_URL": redirector.baseURL, "METRIKA_API_URL": redirector.baseURL,
                "METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"
            ])
        let result = try metrika(["login"], environment: environment, timeout: 60)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(target.requests.isEmpty)
        let errors = Self.errorLines(result)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("127.0.0.1:\(target.port)") == true, "\(result.stderr)")
        #expect(!result.stderr.contains("EVIL"))
    }

    // MARK: - Size

    @Test("An endless body is cut at the response limit, in bounded memory", arguments: [0, 1])
    func endlessBody(command: Int) throws {
        let home = try TemporaryDirectory()
        let server = try HostileServer(.endlessChunked)
        let started = Date()
        let (result, peak) = try Self.runMeasured(
            Self.commands[command],
            environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_API_URL": server.baseURL]),
            timeout: 90)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let errors = Self.errorLines(result)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("64 MiB") == true, "\(result.stderr)")
        #expect(errors.first?.contains("METRIKA_MAX_RESPONSE") == true)
        #expect(server.requests.count == 1, "an oversized answer is not transient: no retries")
        #expect(Date().timeIntervalSince(started) < 30)
        // The body is held up to the 64 MiB limit and not a byte further (libcurl hands each piece over
        // on the thread that reads the socket): the limit plus the process's own ~35–50 MiB.
        if let peak { #expect(peak < 160 * 1024, "peak RSS \(peak) KiB") }
        try Self.reportUnmeasured(peak)
    }

    @Test("A gzip bomb is cut at the limit on the decompressed bytes", arguments: [0, 1])
    func gzipBomb(command: Int) throws {
        let home = try TemporaryDirectory()
        // 2 MiB of deflate expand to ~330 MB: over the 64 MiB limit, yet small enough that a client
        // without the limit survives the test.
        let server = try HostileServer(.gzipBomb, maxBytes: 2 << 20)
        let (result, peak) = try Self.runMeasured(
            Self.commands[command],
            environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_API_URL": server.baseURL]),
            timeout: 90)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let errors = Self.errorLines(result)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("64 MiB") == true, "\(result.stderr)")
        #expect(server.requests.count == 1)
        if let peak { #expect(peak < 160 * 1024, "peak RSS \(peak) KiB") }
        try Self.reportUnmeasured(peak)
    }

    @Test("METRIKA_MAX_RESPONSE adjusts the limit, and a bad value is a configuration error")
    func adjustableLimit() throws {
        let home = try TemporaryDirectory()
        let server = try HostileServer(.endlessChunked)
        let environment = metrikaEnvironment(
            api: nil, home: home.path, extra: ["METRIKA_API_URL": server.baseURL, "METRIKA_MAX_RESPONSE": "2M"])
        let (result, peak) = try Self.runMeasured(["counters"], environment: environment)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(Self.errorLines(result).first?.contains("2 MiB") == true, "\(result.stderr)")
        // Memory follows the limit: with 2 MiB allowed, nothing like the 64 MiB of the default is held.
        if let peak { #expect(peak < 80 * 1024, "peak RSS \(peak) KiB") }

        var bad = environment
        bad["METRIKA_MAX_RESPONSE"] = "lots"
        let refused = try metrika(["counters"], environment: bad)
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(Self.errorLines(refused).first?.contains("METRIKA_MAX_RESPONSE") == true)
        // A size beyond what a number holds is refused the same way, not a crash (it trapped).
        bad["METRIKA_MAX_RESPONSE"] = "999999999999G"
        let huge = try metrika(["counters"], environment: bad)
        #expect(huge.status == 78, "\(huge.stderr)")
        #expect(Self.errorLines(huge).first?.contains("METRIKA_MAX_RESPONSE") == true, "\(huge.stderr)")
        try Self.reportUnmeasured(peak)
    }

    /// Broken HTTP is an answer, not a network failure: one attempt, exit 65 naming it.
    static let malformed: [(String, [UInt8])] = [
        (
            "a chunk size that is not hex",
            Array(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
                    .utf8)
        ),
        (
            "gzip that is not gzip",
            Array(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\n\r\nnot gzip at!"
                    .utf8)
        ),
        ("a status line that is not HTTP", Array("HTTP/1.1 two hundred\r\n\r\n".utf8))
    ]

    @Test("A malformed HTTP answer is unreadable at once, not retried as a cut connection", arguments: 0..<3)
    func malformedAnswer(index: Int) throws {
        let (what, bytes) = Self.malformed[index]
        let home = try TemporaryDirectory()
        let server = try HostileServer(.raw(bytes))
        let result = try metrika(
            ["counters", "--csv"],
            environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_API_URL": server.baseURL]))
        #expect(result.status == 65, "\(what): \(result.stderr)")
        #expect(Self.errorLines(result).first?.contains("malformed HTTP answer") == true, "\(what): \(result.stderr)")
        #expect(server.requests.count == 1, "\(what): asked \(server.requests.count) times")
    }

    @Test("http_proxy is honoured, as README.md says (libcurl reads it)")
    func aProxyCarriesTheRequest() throws {
        let home = try TemporaryDirectory()
        let proxy = try HostileServer(.answer(status: 200, body: Self.counterList))
        // Plain http to another host would carry the token in clear: refused before any connection
        // (the proxy, which sees every request, sees none) unless the test set-up says otherwise.
        let refused = try metrika(
            ["counters", "--csv"],
            environment: metrikaEnvironment(
                api: nil, home: home.path,
                extra: [
                    "METRIKA_API_URL": "http://api.metrika.invalid", "http_proxy": proxy.baseURL, "no_proxy": ""
                ]))
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(
            refused.stderr
                == "Error: METRIKA_API_URL 'http://api.metrika.invalid' is plain http to api.metrika.invalid, which is not this machine: the OAuth token would cross the network unencrypted. Use https://, or set METRIKA_ALLOW_INSECURE_HTTP=1 for a test set-up.\n"
        )
        #expect(proxy.requests.isEmpty)
        let result = try metrika(
            ["counters", "--csv"],
            environment: metrikaEnvironment(
                api: nil, home: home.path,
                extra: [
                    "METRIKA_API_URL": "http://api.metrika.invalid", "http_proxy": proxy.baseURL, "no_proxy": "",
                    "METRIKA_ALLOW_INSECURE_HTTP": "1"
                ]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("4242,evil"), "\(result.stdout)")
        #expect(
            proxy.requests.first?.path.hasPrefix("http://api.metrika.invalid/management/v1/counters") == true,
            "\(proxy.requests)")
    }

    @Test(
        "A URL with an impossible port is a configuration error at once, not five attempts",
        arguments: ["http://127.0.0.1:99999", "http://127.0.0.1:0"])
    func impossiblePort(url: String) throws {
        let home = try TemporaryDirectory()
        // Exit 78 is the proof that nothing was tried: a request, even one, would end in 69.
        let result = try metrika(
            ["counters"], environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_API_URL": url]))
        #expect(result.status == 78, "\(result.stderr)")
        #expect(Self.errorLines(result).first?.contains("a port is 1 to 65535") == true, "\(result.stderr)")
    }

    // MARK: - Deadline

    @Test(
        "A server that drips one byte at a time cannot hold a command past attempts × timeout + backoff",
        arguments: [0, 1])
    func slowDrip(command: Int) throws {
        let home = try TemporaryDirectory()
        let server = try HostileServer(.drip(interval: 0.2), maxSeconds: 90)
        let started = Date()
        let result = try metrika(
            Self.commands[command],
            environment: metrikaEnvironment(
                api: nil, home: home.path, retryScale: 0.05,
                extra: ["METRIKA_API_URL": server.baseURL, "METRIKA_TIMEOUT": "1"]), timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(Self.errorLines(result).first?.contains("within the request timeout") == true, "\(result.stderr)")
        #expect(server.requests.count == 5)
        // 5 attempts × 1 s + at most 0.5 + 1 + 2 + 4 s of backoff, plus start-up slack.
        #expect(elapsed < 5 * 1 + 7.5 + 4, "took \(elapsed) s")
        server.stop()
    }

    // MARK: - TLS

    @Test("A certificate nobody trusts fails at once, without retries")
    func untrustedCertificate() throws {
        let tls = try TLSTestServer()
        defer { tls.stop() }
        let home = try TemporaryDirectory()
        let started = Date()
        let result = try metrika(
            ["counters", "--verbose"],
            environment: metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_API_URL": tls.baseURL]))
        #expect(result.status == 69, "\(result.stderr)")
        let attempts = result.stderr.split(separator: "\n").filter { $0.hasPrefix("GET https://") }
        #expect(attempts.count == 1, "\(result.stderr)")
        let errors = Self.errorLines(result)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("TLS") == true, "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
    }
}

/// `openssl s_server` with a fresh self-signed certificate on a free loopback port, or nil when
/// there is no openssl.
final class TLSTestServer: @unchecked Sendable {
    let process: Process
    let port: Int
    let directory: TemporaryDirectory
    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Skips the test (recorded, naming the package) when openssl is missing; fails it when openssl
    /// is there but the server does not come up.
    init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let searchPath = "/usr/bin:/usr/local/bin:/opt/homebrew/bin"
        try ToolCheck.require("openssl", package: "openssl", searchPath: searchPath, sourceLocation: sourceLocation)
        let openssl = try #require(ToolCheck.locate("openssl", searchPath: searchPath))
        directory = try TemporaryDirectory()
        let key = directory.path + "/key.pem"
        let cert = directory.path + "/cert.pem"
        let made = try runProcess(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj",
                "/CN=localhost"
            ], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        guard made.status == 0 else { throw SimpleError("openssl req failed: \(made.stderr)") }
        let probe = try HostileServer(.answer(status: 200, body: "{}"))
        port = probe.port
        probe.stop()
        usleep(200_000)
        process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-www", "-quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until it accepts connections.
        var accepting = false
        for _ in 0..<50 {
            accepting = Self.accepts(port)
            if accepting { break }
            usleep(100_000)
        }
        if !accepting {
            stop()
            throw SimpleError("openssl s_server did not accept connections on port \(port) within 5 s")
        }
    }

    static func accepts(_ port: Int) -> Bool {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// SIGKILL: `s_server` does not end on SIGTERM.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
