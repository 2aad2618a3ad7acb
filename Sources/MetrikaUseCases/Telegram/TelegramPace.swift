import Foundation
import MetrikaAPI

/// How fast messages may go to Telegram (core.telegram.org/bots/faq): to one chat about one a second
/// and at most 20 a minute (a group), at most 30 a second overall. Each rule is "never more than
/// `count` within any `seconds`", with a margin, because the Bot API counts on its clock, not ours:
/// one message a second becomes one per 1.05 s, 20 a minute 18 per 63 s, 30 a second 25.
package struct TelegramPace: Sendable, Equatable {
    package struct Rule: Sendable, Equatable {
        package var count: Int
        package var seconds: Double

        package init(_ count: Int, in seconds: Double) {
            self.count = count
            self.seconds = seconds
        }
    }

    /// The rules for the messages to one chat.
    package var perChat: [Rule]
    /// The rules for all messages together.
    package var overall: [Rule]

    package init(perChat: [Rule], overall: [Rule]) {
        self.perChat = perChat
        self.overall = overall
    }

    /// Telegram's pace with its margin.
    package static let telegram = TelegramPace(
        perChat: [Rule(1, in: 1.05), Rule(TelegramBot.perChatPerMinute, in: 63)], overall: [Rule(25, in: 1.05)])

    /// The same rules with every window `scale` times as long (`METRIKA_TEST_PACE_SCALE`).
    package func scaled(by scale: Double) -> TelegramPace {
        func scaled(_ rules: [Rule]) -> [Rule] { rules.map { Rule($0.count, in: $0.seconds * scale) } }
        return TelegramPace(perChat: scaled(perChat), overall: scaled(overall))
    }

    /// `METRIKA_TEST_PACE_SCALE`, for metrika's own end-to-end tests only (docs/reliability.md; not a
    /// user setting): a number from 0.01 to 1 that shortens the pace's windows, so that a fault drill
    /// of a digest does not take a second a message. It counts only when the Bot API is on this
    /// machine's loopback (the simulator): never against Telegram, whose limits the pace keeps.
    package static func testScale(_ environment: [String: String], baseURL: URL) -> Double? {
        guard let text = environment["METRIKA_TEST_PACE_SCALE"], let scale = Double(text), scale >= 0.01, scale <= 1,
            let host = baseURL.host, PlainHTTPPolicy.isLoopback(host)
        else { return nil }
        return scale
    }

    /// How long past sends matter.
    var memory: Double { (perChat + overall).map(\.seconds).max() ?? 0 }

    /// The earliest time at or after `earliest` when one more message may go to a chat whose past
    /// (and planned) sends are `chat`, all chats' being `all`: no rule broken in any window.
    package func slot(after earliest: Date, chat: [Date], all: [Date]) -> Date {
        var slot = earliest
        // Each pass moves the slot past one rule's window; a handful settle every rule.
        for _ in 0..<8 {
            let moved = max(Self.slot(slot, perChat, chat.sorted()), Self.slot(slot, overall, all.sorted()))
            if moved == slot { break }
            slot = moved
        }
        return slot
    }

    /// The earliest time ≥ `slot` at which `times` (sorted) leave room under each rule.
    private static func slot(_ slot: Date, _ rules: [Rule], _ times: [Date]) -> Date {
        var result = slot
        for rule in rules where rule.count > 0 {
            // The sends within the window that ends at the slot, including planned ones after it.
            let recent = times.filter { $0 > result.addingTimeInterval(-rule.seconds) }
            if recent.count >= rule.count {
                result = max(result, recent[recent.count - rule.count].addingTimeInterval(rule.seconds))
            }
        }
        return result
    }
}
