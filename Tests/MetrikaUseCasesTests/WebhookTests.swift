import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaUseCases

/// The webhook's URL rules and answers, over a scripted transport (the real server drills are in
/// EndToEndTests/AlertEndToEndTests).
@Suite struct WebhookTests {
    static let secretURL = "https://hooks.slack.com/services/T0001/B0002/s3cr3tXYZabc"

    @Test func theURLIsShownOnlyAsSchemeAndHost() throws {
        let hook = try Webhook(Self.secretURL, transport: FakeTransport([]), timeout: 5, source: "--webhook")
        #expect(hook.masked == "https://hooks.slack.com/…")
        #expect(hook.secrets.contains("/services/T0001/B0002/s3cr3tXYZabc"))
    }

    static let refused: [(String, String, WebhookError)] = [
        ("ftp://example.com/x", "is not an http(s) URL", .notAURL(source: "--webhook")),
        ("not a url", "is not an http(s) URL", .notAURL(source: "--webhook")),
        (
            "http://hooks.example.com/secret-path", "plain http to another machine",
            .plainHTTP(source: "--webhook", masked: "http://hooks.example.com/…")
        ),
        (
            "https://user:pass@hooks.example.com/x", "user:password",
            .credentialsInURL(source: "--webhook", masked: "https://hooks.example.com/…")
        )
    ]

    @Test(arguments: refused)
    func unusableURLsAreConfigurationErrorsThatDoNotShowThem(_ url: String, _ message: String, _ expected: WebhookError)
    {
        do {
            _ = try Webhook(url, transport: FakeTransport([]), timeout: 5, source: "--webhook")
            Issue.record("accepted \(url)")
        } catch let failure as WebhookError {
            #expect(failure.exitCode == ExitCode.config)
            #expect(failure == expected)
            #expect(failure.message.contains(message), "\(failure.message)")
            #expect(!failure.message.contains("secret-path") && !failure.message.contains("pass@"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func plainHTTPToThisMachineIsFine() throws {
        for url in ["http://127.0.0.1:8080/hook", "http://localhost/hook", "http://[::1]:9/hook"] {
            _ = try Webhook(url, transport: FakeTransport([]), timeout: 5, source: "METRIKA_WEBHOOK_URL")
        }
        // Elsewhere only with the test set-ups' override, as for the API.
        _ = try Webhook(
            "http://hooks.example.com/x", transport: FakeTransport([]), timeout: 5, source: "--webhook",
            environment: [PlainHTTPPolicy.overrideVariable: "1"])
    }

    @Test func aJSONPostWithTheCapAndTheTimeout() async throws {
        let transport = FakeTransport([.respond(200, "ok")])
        let hook = try Webhook(Self.secretURL, transport: transport, timeout: 7, source: "--webhook")
        try await hook.send(Data(#"{"text":"x"}"#.utf8))
        let sent = try #require(transport.requests.first)
        #expect(sent.method == "POST")
        #expect(sent.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(sent.timeout == 7 && sent.maxResponseBytes == Webhook.maxResponseBytes)
        #expect(sent.headers["Authorization"] == nil, "the API token never goes to a webhook")
    }

    static let failures: [(FakeTransport.Step, String, WebhookError)] = [
        (
            .respond(302, "", ["Location": "https://elsewhere.example/"]),
            "redirect (HTTP 302) to https://elsewhere.example",
            .redirected(masked: "https://hooks.slack.com/…", status: 302, target: "https://elsewhere.example")
        ),
        (
            .respond(500, "boom at /services/T0001/B0002/s3cr3tXYZabc"), "HTTP 500: boom at [hidden]",
            .refused(masked: "https://hooks.slack.com/…", status: 500, answer: "boom at [hidden]")
        ),
        (.fail(.timedOut), "no answer within 5 s", .timedOut(masked: "https://hooks.slack.com/…", seconds: 5)),
        (
            .fail(.tooLarge(limit: 65_536)), "larger than 64 KiB",
            .answerTooLarge(masked: "https://hooks.slack.com/…", limit: 65_536)
        )
    ]

    @Test(arguments: failures)
    func anAnswerOtherThan2xxIsExit69NamingOnlyTheHost(
        _ step: FakeTransport.Step, _ message: String, _ expected: WebhookError
    ) async throws {
        let hook = try Webhook(Self.secretURL, transport: FakeTransport([step]), timeout: 5, source: "--webhook")
        do {
            try await hook.send(Data("{}".utf8))
            Issue.record("no failure")
        } catch let failure as WebhookError {
            #expect(failure.exitCode == ExitCode.unavailable)
            #expect(failure == expected)
            #expect(failure.message.contains(message), "\(failure.message)")
            #expect(failure.message.contains("https://hooks.slack.com/…"))
            #expect(!failure.message.contains("s3cr3t"))
        }
    }

    @Test func slackHooksAreKnownByTheirHost() throws {
        let slack = try Webhook(
            "https://hooks.slack.com/services/T0/B0/secret-0123456789", transport: FakeTransport([]), timeout: 5,
            source: "--webhook")
        #expect(slack.isSlack)
        let telegram = try Webhook(
            "https://api.telegram.org/bot123:ABC/sendMessage?chat_id=1", transport: FakeTransport([]), timeout: 5,
            source: "--webhook")
        #expect(!telegram.isSlack)
        let lookalike = try Webhook(
            "https://hooks.slack.com.example.net/x/secret-0123456789", transport: FakeTransport([]), timeout: 5,
            source: "--webhook")
        #expect(!lookalike.isSlack)
        for url in [
            "https://hooks.slack.com./services/T0/B0/secret-0123456789",
            "https://hooks.slack-gov.com/services/T0/B0/secret-0123456789"
        ] {
            #expect(try Webhook(url, transport: FakeTransport([]), timeout: 5, source: "--webhook").isSlack, "\(url)")
        }
    }
}
