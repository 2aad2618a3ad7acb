import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

// The alert run's settings, counters and deliverers, the same for every entry point: the config
// file's `"alerts"`, the webhook, Telegram and the mail, each built with the run's transport, timeout,
// secrets and notes.

extension Services {
    /// The time metrika takes as now (`METRIKA_NOW` pins it).
    package var now: @Sendable () -> Date { world.now }

    /// A history loader with the last 2 days as still changing; offline, the history is read only.
    package func historyLoader(offline: Bool) async throws -> HistoryLoader {
        try await historyLoader(offline: offline, unsettledDays: 2, readOnly: offline)
    }

    /// SVG → PNG (rsvg-convert); its failure says how to install it.
    package var rasterizer: any ChartRasterizer { world.rasterizer }

    /// The config file's `"alerts"` over the defaults.
    package func alertSettings() throws -> AlertSettings {
        try AlertRun.settings(from: try configFile()?.alerts)
    }

    /// The counters an alert check looks at (`AlertRun.counters`).
    package func alertCounters(
        _ ids: [Int], loader: HistoryLoader
    ) async throws -> (counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)]) {
        try await AlertRun(loader: loader, settings: try alertSettings(), activity: world.activity).counters(ids)
    }

    /// Every secret the run knows: the environment's and the ones found since.
    package var secrets: [String] { world.secrets.all(environment: world.environment) }

    // MARK: - Deliverers

    /// The webhook at `given` (named by `givenBy`, e.g. `--webhook`), else METRIKA_WEBHOOK_URL; nil when
    /// neither is set. Its secret parts join the run's masked secrets at once.
    package func webhook(given: String?, givenBy: String) throws -> Webhook? {
        let variable = world.environment[EnvironmentSettings.webhookURLVariable]
        let text = given ?? variable.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        guard let text else { return nil }
        world.secrets.add(text)
        let webhook = try Webhook(
            text, transport: world.transport, timeout: try requestTimeout(),
            source: given != nil ? givenBy : EnvironmentSettings.webhookURLVariable, environment: world.environment)
        for secret in webhook.secrets { world.secrets.add(secret) }
        return webhook
    }

    /// The alerts to Telegram `chats` through `bot`, with the charts of the run's rasterizer.
    package func telegramDeliverer(bot: TelegramBot, chats: [TelegramChatID]) -> TelegramDeliverer {
        TelegramDeliverer(bot: bot, chats: chats, rasterizer: world.rasterizer, activity: world.activity)
    }

    /// The alerts mailed through `sendmail`; sendmail and rsvg-convert run without the webhook's secret.
    package func mailDeliverer(
        sender: MIMEAddress, recipients: [MIMEAddress], sendmail: String, hiding webhook: Webhook?
    ) -> AlertMailDeliverer {
        AlertMailDeliverer(
            sender: sender, recipients: recipients, sendmail: sendmail,
            childEnvironment: Self.childEnvironment(world.environment, hiding: webhook), rasterizer: world.rasterizer,
            activity: world.activity)
    }

    /// The environment of sendmail and rsvg-convert: ChildProcess drops every METRIKA_ variable; this
    /// also drops any other variable that holds the webhook URL or a part of its secret (a cron line's
    /// `--webhook "$SLACK_URL"`, a Telegram bot token variable).
    package static func childEnvironment(_ environment: [String: String], hiding webhook: Webhook?) -> [String: String]
    {
        guard let webhook else { return environment }
        let url = webhook.url.absoluteString
        return environment.filter { _, value in
            guard value.count >= 8 else { return true }
            return !url.contains(value) && !webhook.secrets.contains(where: { value.contains($0) && $0.count >= 8 })
        }
    }
}
