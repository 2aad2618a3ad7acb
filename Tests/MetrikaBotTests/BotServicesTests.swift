import Foundation
import MetrikaModel
import MetrikaServices
import MetrikaStore
import MetrikaSystem
import MetrikaTestSupport
import Testing

@testable import MetrikaAPI
@testable import MetrikaBot
@testable import MetrikaUseCases

/// The bot built from the one services seam: its Telegram bot, history database, default counter,
/// client and loader all come from `RunServices` (here a fake whose Metrika access is refused).
@Suite struct BotServicesTests {
    struct RefusedServices: RunServices {
        let bot: TelegramBot
        let store: HistoryStore
        var now: @Sendable () -> Date { { testNow } }
        func client() throws -> MetrikaClient { throw APIError.invalidToken }
        func historyLoader(offline: Bool) throws -> HistoryLoader { throw APIError.invalidToken }
        func historyLoader(offline: Bool, unsettledDays: Int) throws -> HistoryLoader {
            throw APIError.accessDenied("No access.", counterID: 1001)
        }
        func history() -> HistoryStore { store }
        var rasterizer: any ChartRasterizer { RSVGConvertRasterizer(environment: [:]) }
        func alertSettings() -> AlertSettings { AlertSettings() }
        func alertCounters(
            _ ids: [Int], loader: HistoryLoader
        ) -> (counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)]) { ([], []) }
        func defaultCounters() -> (ids: [String], source: String)? { (["1001"], "the test") }
        func telegramBot() -> TelegramBot { bot }
        var secrets: [String] { [] }
    }

    @Test func theBotOfTheServicesAnswersFromThemAndKeepsItsOffsetInTheirHistory() async throws {
        let store = try await HistoryStore.open(path: ":memory:")
        let updates = [BotServerTests.update(1, chat: 42, "/counters"), BotServerTests.update(2, chat: 42, "/report")]
        var steps = [
            BotServerTests.ok(#"{"id":987654321,"first_name":"m","username":"metrika_bot"}"#),
            BotServerTests.ok("true"), BotServerTests.ok("true"),
            BotServerTests.ok("[" + updates.joined(separator: ",") + "]")
        ]
        steps += (1...2).map { BotServerTests.ok(#"{"message_id":\#($0),"chat":{"id":42}}"#) }
        steps.append(BotServerTests.ok("[]"))
        let transport = FakeTransport(steps)
        let bot = try TelegramBot(
            token: BotServerTests.token, transport: transport, timeout: 5, sleep: { _ in }, now: { testNow })
        let server = try await BotServer(
            services: RefusedServices(bot: bot, store: store), allowed: [42], activity: RecordedActivity(),
            stopRequests: nil,
            stranger: { _ in }, limited: { _ in })
        let summary = try await server.run(once: true)
        #expect(summary == BotServer.Summary(answered: 2, ignored: 0))
        let texts = transport.requests.filter { $0.url.lastPathComponent == "sendMessage" }.compactMap { request in
            ((try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any])?["text"] as? String
        }
        #expect(texts.count == 2)
        #expect(texts.first?.contains("must sign in again") == true, "the services' client: \(texts)")
        #expect(
            texts.last?.hasPrefix("Counter 1001 cannot be read") == true,
            "the services' default counter and loader: \(texts)")
        #expect(try await store.botOffset(botID: 987_654_321) == 3, "the offset kept in the services' history")
    }
}
