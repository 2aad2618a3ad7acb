import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaAPI
@testable import MetrikaUseCases

/// `METRIKA_TEST_PACE_SCALE` (docs/reliability.md): the delivery drills' way to shorten the Telegram
/// pace against the loopback Bot API simulator. Never against Telegram; not a user setting.
@Suite struct TelegramPaceScaleTests {
    static let token = "123456789:AAE-simulated_TOKEN_0123456789abcdefgh"
    static let loopback = URL(string: "http://127.0.0.1:8081")!

    func pace(_ value: String?, _ url: URL) throws -> TelegramPace {
        let environment = value.map { ["METRIKA_TEST_PACE_SCALE": $0] } ?? [:]
        return try TelegramBot(token: Self.token, baseURL: url, transport: FakeTransport([]), environment: environment)
            .pace
    }

    @Test func onLoopbackTheWindowsShrink() throws {
        let scaled = try pace("0.05", Self.loopback)
        #expect(scaled == TelegramPace.telegram.scaled(by: 0.05))
        #expect(abs((scaled.perChat.first?.seconds ?? 0) - 0.0525) < 1e-9)
        #expect(scaled.perChat.map(\.count) == TelegramPace.telegram.perChat.map(\.count))
    }

    @Test(arguments: [nil, "", "0", "0.001", "2", "-1", "fast"])
    func anythingElseKeepsThePace(_ value: String?) throws {
        #expect(try pace(value, Self.loopback) == .telegram)
    }

    @Test func againstTelegramThePaceStaysWhole() throws {
        #expect(try pace("0.05", TelegramBot.defaultBaseURL) == .telegram)
        #expect(try pace("0.05", URL(string: "https://127.0.0.1.example.com")!) == .telegram)
    }
}
