import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
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

    /// A chart photo's caption: which counter (name and id), which metric, which days.
    package static func caption(_ section: MailReport.Section, _ chart: CompactLineChart) -> String {
        "<b>\(TelegramHTML.escape(section.counter.displayName))</b> (\(section.counter.id)) · "
            + TelegramHTML.escape(
                "\(chart.heading), \(section.current.from.iso) – \(section.current.to.iso)")
    }

    /// The outbox batch of a digest: the same counters, days, metrics, bot and chats are the same digest.
    static func batch(
        _ sections: [MailReport.Section], request: MailComposer.Request, bot: TelegramBot, chats: [TelegramChatID]
    ) -> String {
        let key = [
            sections.map { "\($0.counter.id):\($0.current.from.iso):\($0.current.to.iso)" }.joined(separator: ","),
            request.tableMetrics.map(\.apiName).joined(separator: ","),
            request.chartMetrics.map(\.apiName).joined(separator: ","), bot.botID,
            chats.map(\.value).joined(separator: ",")
        ].joined(separator: "|")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "digest:" + String(hash, radix: 16)
    }

    /// Composes the digest of `request` with `composer` and sends it to every chat through the outbox:
    /// the summary, then the PNG charts, each captioned (none, with the composer's one warning,
    /// without a rasterizer). Every message is written to the outbox first; a run of the same digest
    /// (counters, days, metrics, chats) that finds part of it still pending — an earlier run was
    /// killed — sends only what is left. Per chat: one that fails does not hold up the others.
    package static func send(
        _ request: MailComposer.Request, composer: MailComposer, bot: TelegramBot, chats: [TelegramChatID],
        stop: DeliveryStop? = nil, showsProgress: Bool = false, announce: Bool = false
    ) async throws -> OutboxDelivery.Report {
        let activity = composer.activity
        let store = composer.loader.store
        let sections = try await composer.sections(request)
        let batch = batch(sections, request: request, bot: bot, chats: chats)
        let sender = TelegramOutboxSender(bot: bot)
        let left = try await store.outboxBatch(batch).filter { $0.state == .pending }
        if left.isEmpty {
            let charts = sections.map { MailComposer.lineCharts($0, metrics: request) }
            let captions = zip(sections, charts).flatMap { section, charts in charts.map { caption(section, $0) } }
            let images = try await MailComposer.inlineImages(
                sections, charts: charts, seedTag: "telegram", rasterizer: composer.rasterizer, activity: activity)
            let photos = zip(images, captions).filter { $0.0.mediaType == "image/png" }
            let text = summary(sections, metrics: request.tableMetrics, naming: activity.naming)
            let now = activity.now()
            let drafts = chats.flatMap { chat in
                TelegramHTML.split(text).map { OutboxDraft(recipient: chat.value, kind: "text", body: Data($0.utf8)) }
                    + photos.map { image, caption in
                        OutboxDraft(
                            recipient: chat.value, kind: "photo", body: image.data, fileName: image.filename,
                            caption: caption)
                    }
            }
            try await store.queueOutbox(drafts.map { $0.message(batch: batch, sender: sender, episodes: [], at: now) })
        } else {
            activity.note(
                "Resuming the digest an earlier run did not finish: \(OutboxDelivery.messages(left.count)) left to send."
            )
        }
        var delivery = OutboxDelivery(store: store, senders: [sender], activity: activity, stop: stop)
        delivery.showsProgress = showsProgress
        delivery.announce = announce
        return try await delivery.flush()
    }
}
