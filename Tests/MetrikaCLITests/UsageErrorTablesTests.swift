import Foundation
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

/// Command lines refused before any request, each with its exit status and the message that names
/// what was wrong: in-process through `CLI.run` (these tables launched the built binary once per row).
/// A transport that counts requests stands in for the network: every row must make none.
@Suite("Usage error tables")
struct UsageErrorTablesTests {
    /// Counts the requests it is asked to send, and answers none.
    final class CountingTransport: HTTPTransport, Sendable {
        let count = Mutex(0)
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            count.withLock { $0 += 1 }
            throw CancellationError()
        }
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var requests: Int
    }

    /// Runs metrika in-process with a scratch home, a token, and no network.
    static func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> Result {
        let home = try ScratchDirectory()
        var environment = [
            "PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config",
            "XDG_DATA_HOME": home.path + "/data",
            "LC_ALL": "C", "METRIKA_TIMEOUT": "5", "METRIKA_TOKEN": "demo-token"
        ]
        for (key, value) in extra { environment[key] = value }
        let out = TextSink()
        let err = TextSink()
        let transport = CountingTransport()
        let context = CLIContext(environment: environment, stdout: out, stderr: err, transport: transport)
        let status = await CLI.run(arguments: arguments, context: context)
        return Result(status: status, stdout: out.text, stderr: err.text, requests: transport.count.withLock { $0 })
    }

    // MARK: - chart

    static let chartUsageCases: [([String], String)] = [
        (["chart", "--counter", "1001"], "Missing --output"),
        (["chart", "--output", "x.svg"], "Missing --counter"),
        (
            ["chart", "--counter", "1001", "--width", "10", "--output", "x.svg"],
            "--width must be a whole number from 240"
        ),
        (["chart", "--counter", "1001", "--metrics", "nonsense", "--output", "x.svg"], "Unknown metric 'nonsense'"),
        (
            ["chart", "--counter", "1001", "--format", "svg", "--output", "x.png"],
            "--format svg contradicts the file name x.png"
        ),
        (["chart", "--counter", "1001", "--format", "gif", "--output", "x"], "--format must be svg or png, not 'gif'"),
        (["chart", "--counter", "1001", "--output", "x.JPG"], "metrika draws charts as SVG or PNG, not .jpg")
    ]

    @Test(arguments: chartUsageCases)
    func chartUsageErrorsAreExit64(_ arguments: [String], _ message: String) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.requests == 0)
    }

    // MARK: - alert

    static let badAlertInvocations: [([String], [String: String], String, Int32)] = [
        (["alert", "--webhook", "ftp://example.com/x"], [:], "--webhook is not an http(s) URL", 78),
        (["alert", "--webhook", "http://hooks.example.com/T0/secret"], [:], "plain http to another machine", 78),
        (["alert"], ["METRIKA_WEBHOOK_URL": "nonsense"], "METRIKA_WEBHOOK_URL is not an http(s) URL", 78),
        (["alert", "--webhook", ""], [:], "--webhook needs a URL", 64),
        (["alert", "--mail", "not-an-address"], [:], "not a valid e-mail address", 64),
        (["alert", "--sender", "a@example.com"], [:], "--sender and --sendmail go with --mail", 64),
        (
            ["alert", "--mail", "a@example.com", "--sendmail", "/nonexistent/sendmail"], [:],
            "no sendmail program at /nonexistent/sendmail", 78
        ),
        (["alert", "--counter", "abc"], [:], "--counter 'abc' is not a counter id", 64),
        // The address forgotten: --mail takes "--webhook", the URL is left over — and still not shown.
        (["alert", "--mail", "--webhook", "https://hooks.example.com/T0/secret"], [:], "Unexpected argument", 64),
        (["alert", "https://hooks.example.com/T0/secret"], [:], "Unexpected argument", 64)
    ]

    @Test(arguments: badAlertInvocations)
    func badAlertInputFailsClearly(_ arguments: [String], _ extra: [String: String], _ message: String, _ code: Int32)
        async throws
    {
        let result = try await Self.run(arguments, extra: extra)
        #expect(result.status == code, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first?.hasPrefix("Error: ") == true, "\(result.stderr)")
        #expect(
            result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }.count == 1,
            "one error line: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("T0/secret") && !result.stderr.contains("ftp://"), "the URL is not shown")
        #expect(result.requests == 0)
    }

    // MARK: - mail

    static let badMailInvocations: [([String], String, Int32)] = [
        (["mail", "--counter", "1001"], "Missing --to", 64),
        (["mail", "--counter", "1001", "--to", "not-an-address", "--dry-run"], "not a valid e-mail address", 64),
        (["mail", "--counter", "1001", "--to", "a@example.com", "--period", "0d", "--dry-run"], "--period must be", 64),
        (["mail", "--counter", "1001", "--to", "a@example.com", "--last", "0d", "--dry-run"], "--last must be", 64),
        (
            ["mail", "--counter", "1001", "--to", "a@example.com", "--period", "fortnight", "--dry-run"],
            "--period 'fortnight' is not a period", 64
        ),
        (
            ["mail", "--counter", "1001", "--to", "a@example.com", "--period", "lastWeek", "--last", "7d", "--dry-run"],
            "--period and --last contradict each other", 64
        ),
        (
            ["mail", "--counter", "1001", "--to", "a@example.com", "--sendmail", "/nonexistent/sendmail"],
            "no sendmail program at /nonexistent/sendmail", 78
        )
    ]

    @Test(arguments: badMailInvocations)
    func badMailInvocationsFailClearly(_ arguments: [String], _ message: String, _ code: Int32) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == code, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.requests == 0)
    }

    // MARK: - report

    /// Mistakes in the command line are refused before any request, naming what was wrong.
    static let reportRefusals: [(arguments: [String], message: String)] = [
        (["--metrics", "visitz"], "Unknown metric 'visitz'"),
        (["--metrics", twentyOneMetrics], "21 metrics; the API allows at most 20"),
        (["--from", "2026-13-01"], "--from '2026-13-01' is not a date"),
        (["--to", "tomorrow"], "--to 'tomorrow' is not a date"),
        (["--from", "2026-11-10", "--to", "2026-11-01"], "--from 2026-11-10 is after --to 2026-11-01"),
        (["--from", "yesterday", "--to", "5daysAgo"], "--from yesterday is after --to 5daysAgo"),
        (["--group", "year"], "--group must be day, week or month, not 'year'"),
        (["--dimensions", "os", "--group", "week"], "cannot be combined with --dimensions"),
        (["--offline", "--refresh"], "--offline and --refresh contradict each other"),
        (["--dimensions", "nonsense"], "Unknown dimension 'nonsense'"),
        (["--accuracy", "2"], "--accuracy must be low, medium, high, full or a number in (0, 1]")
    ]

    static let twentyOneMetrics: String = (1...21).map { (n: Int) -> String in "goal\(n)reaches" }.joined(
        separator: ",")

    /// Mistakes in the command line are refused before any request, naming what was wrong.
    @Test(arguments: reportRefusals)
    func reportUsageErrorsBeforeAnyRequest(refusal: (arguments: [String], message: String)) async throws {
        let (arguments, message) = refusal
        let result = try await Self.run(["report", "--counter", "1001"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.requests == 0)
    }

    // MARK: - did you mean

    @Test(arguments: [
        (["auth", "stat"], "Unknown command 'auth stat'. Did you mean 'auth status'?"),
        (["cache", "infp"], "Unknown command 'cache infp'. Did you mean 'cache info'?"),
        (["cache", "pr"], "Unknown command 'cache pr'. Did you mean 'cache prune'?"),
        (["rep"], "Unknown command 'rep'. Did you mean 'report'?"),
        (["counters", "--sear"], "Unknown option '--sear'. Did you mean '--search'?")
    ])
    func didYouMeanABeginning(arguments: [String], message: String) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: \(message)\n"), "\(result.stderr)")
        #expect(result.requests == 0)
    }
}
