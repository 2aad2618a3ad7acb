import Foundation
import MetrikaModel
import MetrikaStore
import MetrikaSystem

/// `--telegram CHAT[,CHAT…]` of `metrika alert` (and `--today`) as a deliverer: per chat, one message
/// with the run's alert lines (Telegram's HTML, every text escaped; split between lines past 4,096
/// characters), then, where the mail has one (the daily check), each alerted metric's chart as a PNG
/// photo captioned with its line (the counter's name and id, the metric). Without a working
/// rasterizer the lines go alone, with one warning.
///
/// Each message to each chat is its own in the outbox: a chat that fails does not make the others
/// receive it again. Chat not found or the bot blocked: said once, given up for that chat; a wrong
/// token (77): every message stays for a run with the right one; the rest are tried again later.
package struct TelegramDeliverer: AlertDeliverer {
    package let bot: TelegramBot
    package let chats: [TelegramChatID]
    package let rasterizer: any ChartRasterizer
    package let activity: any Activity

    package init(bot: TelegramBot, chats: [TelegramChatID], rasterizer: any ChartRasterizer, activity: any Activity) {
        self.bot = bot
        self.chats = chats
        self.rasterizer = rasterizer
        self.activity = activity
    }

    /// A photo's caption: the alert's line and the annotations of its day under it, while they fit
    /// Telegram's 1,024 characters (else the line alone; the message before it has them all).
    static func caption(_ finding: AlertCheck.Finding) -> String {
        let lines = AlertText.lines(finding).joined(separator: "\n")
        return TelegramHTML.escape(lines.count <= TelegramHTML.captionLimit ? lines : AlertText.line(finding))
    }

    /// The message: the subject in bold, then one line per alert.
    package static func message(_ findings: AlertRun.Findings) -> String {
        "<b>\(TelegramHTML.escape(findings.subject))</b>\n\n"
            + findings.lines.map(TelegramHTML.escape).joined(separator: "\n")
    }

    package var channel: OutboxMessage.Channel { .telegram }
    /// Whichever bot the run has: a token fixed since (or another bot) sends what was left.
    package var route: String { "telegram" }

    /// The charts of a day's findings as PNG, by `AlertMail.chartName` (none for hours).
    func photos(_ findings: AlertRun.Findings) async throws -> [String: Data] {
        let daily = findings.all
        guard findings.grain == .day, !daily.isEmpty else { return [:] }
        var photos: [String: Data] = [:]
        do {
            for (index, svg) in AlertMail.chartSVGs(daily).enumerated() {
                photos[AlertMail.chartName(daily[index])] = try await rasterizer.png(
                    fromSVG: svg, scale: ChartSeries.pngScale)
            }
        } catch let error as ChartRasterizerError {
            activity.note("Warning: the alerts go to Telegram without charts: \(error.message(activity.naming))")
            return [:]
        }
        return photos
    }

    package func prepare(_ findings: AlertRun.Findings) async throws -> AlertDrafting {
        let photos = try await photos(findings)
        let chats = self.chats
        return { findings in
            let parts = TelegramHTML.split(Self.message(findings))
            let captioned = findings.all.prefix(AlertMail.maximumCharts).compactMap { finding -> OutboxDraft? in
                let name = AlertMail.chartName(finding)
                guard let png = photos[name] else { return nil }
                return OutboxDraft(
                    recipient: "", kind: "photo", body: png, fileName: name + ".png",
                    caption: Self.caption(finding))
            }
            return chats.flatMap { chat in
                parts.map { OutboxDraft(recipient: chat.value, kind: "text", body: Data($0.utf8)) }
                    + captioned.map { draft in
                        var draft = draft
                        draft.recipient = chat.value
                        return draft
                    }
            }
        }
    }

    package func send(_ message: OutboxMessage) async throws {
        try await TelegramOutboxSender(bot: bot).send(message)
    }

    package func verdict(_ failure: any MetrikaFailure) -> DeliveryVerdict {
        TelegramOutboxSender(bot: bot).verdict(failure)
    }

    package func name(of recipient: String) -> String { "Telegram chat \(recipient)" }
}

/// A bot as a way out of the outbox: its messages (`text`: Telegram HTML of one message, `photo`: a
/// PNG with its caption) to the chats they name.
package struct TelegramOutboxSender: OutboxSender {
    package let bot: TelegramBot

    package init(bot: TelegramBot) { self.bot = bot }

    package var channel: OutboxMessage.Channel { .telegram }
    /// Whichever bot the run has: a token fixed since (or another bot) sends what was left.
    package var route: String { "telegram" }

    package func send(_ message: OutboxMessage) async throws {
        guard let chat = TelegramChatID(message.recipient) else {
            throw TelegramError.notAChat(source: "the outbox", text: message.recipient)
        }
        switch message.kind {
        case "photo":
            try await bot.sendPhoto(
                message.body, fileName: message.fileName ?? "chart.png", caption: message.caption ?? "", to: chat)
        default:
            try await bot.sendText(String(decoding: message.body, as: UTF8.self), to: chat)
        }
    }

    /// Chat not found, blocked, kicked, and any other 400/403 refusal: given up. A token Telegram
    /// refuses: nothing of this bot goes. The rest (429 past the wait, 5xx, timeouts, no network): later.
    package func verdict(_ failure: any MetrikaFailure) -> DeliveryVerdict {
        guard let error = failure as? TelegramError else { return .transient }
        switch error {
        case .chatNotFound, .blocked, .notAChat: return .refused
        case .rejected(_, let status, _) where [400, 403, 404].contains(status): return .refused
        case .unauthorized, .malformedToken: return .routeDown
        default: return .transient
        }
    }

    package func name(of recipient: String) -> String { "Telegram chat \(recipient)" }
}
