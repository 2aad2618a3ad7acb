import Foundation
import MetrikaModel
import MetrikaSystem

/// `--telegram CHAT[,CHAT…]` of `metrika alert` (and `--today`) as a deliverer: per chat, one message
/// with the run's alert lines (Telegram's HTML, every text escaped; split between lines past 4,096
/// characters), then, where the mail has one (the daily check), each alerted metric's chart as a PNG
/// photo captioned with its line. Without a working rasterizer the lines go alone, with one warning.
///
/// Every chat is tried; the first failure (chat not found, blocked: exit 69; a wrong token: 77) is
/// thrown after the rest, so `AlertRun` gives the claims back and the next run tells it again.
package struct TelegramDeliverer: AlertDeliverer {
    package let bot: TelegramBot
    package let chats: [TelegramChatID]
    package let rasterizer: any ChartRasterizer
    package let activity: any Activity
    /// Say "Sent to Telegram chat …" (a terminal, or --verbose): success is quiet where cron watches.
    package let announce: Bool

    package init(
        bot: TelegramBot, chats: [TelegramChatID], rasterizer: any ChartRasterizer, activity: any Activity,
        announce: Bool
    ) {
        self.bot = bot
        self.chats = chats
        self.rasterizer = rasterizer
        self.activity = activity
        self.announce = announce
    }

    /// The message: the subject in bold, then one line per alert.
    package static func message(_ findings: AlertRun.Findings) -> String {
        "<b>\(TelegramHTML.escape(findings.subject))</b>\n\n"
            + findings.lines.map(TelegramHTML.escape).joined(separator: "\n")
    }

    /// The photos: a day's findings' charts as PNG with their lines as captions (none for hours).
    func photos(_ findings: AlertRun.Findings) async throws -> [(name: String, png: Data, caption: String)] {
        let daily = findings.all
        guard findings.grain == .day, !daily.isEmpty else { return [] }
        var photos: [(name: String, png: Data, caption: String)] = []
        do {
            for (index, svg) in AlertMail.chartSVGs(daily).enumerated() {
                let png = try await rasterizer.png(fromSVG: svg, scale: ChartSeries.pngScale)
                photos.append(
                    (AlertMail.chartName(daily[index]) + ".png", png, TelegramHTML.escape(AlertText.line(daily[index])))
                )
            }
        } catch let error as ChartRasterizerError {
            activity.note("Warning: the alerts go to Telegram without charts: \(error.message(activity.naming))")
            return []
        }
        return photos
    }

    package func deliver(_ findings: AlertRun.Findings) async throws {
        let text = Self.message(findings)
        let photos = try await photos(findings)
        var failure: TelegramError?
        for chat in chats {
            do {
                try await bot.sendText(text, to: chat)
                for photo in photos {
                    try await bot.sendPhoto(photo.png, fileName: photo.name, caption: photo.caption, to: chat)
                }
                if announce { activity.note("Sent the alerts to Telegram chat \(chat).") }
            } catch let error as TelegramError {
                // A wrong token fails every chat alike: said once.
                if error == .unauthorized { throw error }
                if failure == nil { failure = error } else { activity.note("Error: \(error.message(activity.naming))") }
            }
        }
        if let failure { throw failure }
    }

    package func failureNote(_ failure: any MetrikaFailure) -> String {
        if let error = failure as? TelegramError, error == .unauthorized {
            return "Error: \(error.message(activity.naming))"
        }
        return untoldNote(failure, naming: activity.naming)
    }
}
