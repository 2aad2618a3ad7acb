import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem

/// `metrika mail --telegram CHAT`: the morning digest in a chat — the summary as text (per counter,
/// each metric's total over the window and its change against the window before, one short line each
/// for a phone) and each chart as a PNG photo. The sections and charts are `MailComposer`'s, so the
/// chat reads what the mail reads.
package enum TelegramDigest {
    /// The summary, Telegram's HTML with every text from Metrika escaped.
    package static func summary(_ sections: [MailReport.Section], metrics: [Metric], naming: ParameterNaming = .neutral)
        -> String
    {
        var parts: [String] = []
        for section in sections {
            var lines = [
                "<b>\(TelegramHTML.escape(section.counter.displayName))</b> (\(section.counter.id)), "
                    + "\(section.current.from.iso) – \(section.current.to.iso)"
            ]
            for (index, metric) in metrics.enumerated()
            where index < section.totals.count && index < section.previousTotals.count {
                let change = MailReport.change(from: section.previousTotals[index], to: section.totals[index])
                lines.append(
                    TelegramHTML.escape("\(metric.title): \(MailReport.format(section.totals[index])) (\(change))"))
            }
            if !section.missingDays.isEmpty {
                lines.append(
                    TelegramHTML.escape(
                        "No history for \(section.missingDays.count) day(s): run `\(naming.action(.fillHistory))` first."
                    ))
            }
            parts.append(lines.joined(separator: "\n"))
        }
        return parts.joined(separator: "\n\n") + "\n\n"
            + TelegramHTML.escape("Change against the previous days of the same length.")
    }

    /// Composes the digest of `request` with `composer` and sends it to every chat: the summary, then
    /// the PNG charts (none, with the composer's one warning, without a rasterizer). The first chat
    /// that failed is thrown after the others were tried; a wrong token at once.
    package static func send(
        _ request: MailComposer.Request, composer: MailComposer, bot: TelegramBot, chats: [TelegramChatID]
    ) async throws {
        let sections = try await composer.sections(request)
        let charts = sections.map {
            MailReport.htmlSection($0, metrics: request.tableMetrics).lineCharts(metrics: request.chartMetrics)
        }
        let images = try await MailComposer.inlineImages(
            sections, charts: charts, seedTag: "telegram", rasterizer: composer.rasterizer, activity: composer.activity)
        let photos = images.filter { $0.mediaType == "image/png" }
        let text = summary(sections, metrics: request.tableMetrics, naming: composer.activity.naming)
        var failure: TelegramError?
        for chat in chats {
            do {
                try await bot.sendText(text, to: chat)
                for photo in photos { try await bot.sendPhoto(photo.data, fileName: photo.filename, to: chat) }
            } catch let error as TelegramError {
                if error == .unauthorized { throw error }
                if failure == nil {
                    failure = error
                } else {
                    composer.activity.note("Error: \(error.message(composer.activity.naming))")
                }
            }
        }
        if let failure { throw failure }
    }
}
