import Foundation
import Testing

@testable import MetrikaStore

/// `metrika bot`'s update offset (table `bot_offsets`, migration 10): per bot, kept across openings, never back.
@Suite struct BotOffsetTests {
    @Test func theOffsetIsKeptPerBotAndNeverGoesBack() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/metrika.sqlite"
            let at = Date(timeIntervalSince1970: 1_780_000_000)
            do {
                let store = try await HistoryStore.open(path: path)
                #expect(try await store.botOffset(botID: 111) == nil)
                try await store.saveBotOffset(41, botID: 111, at: at)
                try await store.saveBotOffset(7, botID: 222, at: at)
                try await store.saveBotOffset(40, botID: 111, at: at)
            }
            let reopened = try await HistoryStore.open(path: path)
            #expect(try await reopened.botOffset(botID: 111) == 41, "an older offset never replaces a newer one")
            #expect(try await reopened.botOffset(botID: 222) == 7)
        }
    }
}
