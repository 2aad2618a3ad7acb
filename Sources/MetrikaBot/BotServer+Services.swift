import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaStore
import MetrikaUseCases

extension BotServer {
    /// The bot of the run's services: its token as every Telegram use finds it (METRIKA_TELEGRAM_TOKEN,
    /// the config's `"telegram"`, the keyring), the history database that keeps its offset, the
    /// default counter when there is exactly one. `activity` is the entry point's log (never a chat);
    /// `stranger` and `limited` are said in the entry point's words.
    package init(
        services: any RunServices, allowed: Set<Int64>, activity: any Activity, stopRequests: (any StopRequests)?,
        stranger: @escaping @Sendable (Int64) -> Void, limited: @escaping @Sendable (Int64) -> Void
    ) async throws {
        let bot = try await services.telegramBot()
        let defaults = try services.defaultCounters()
        let defaultCounter = defaults.flatMap { $0.ids.count == 1 ? Int($0.ids[0]) : nil }
        let store = try await services.history()
        let backend = BotCommands.Backend(
            services: services, store: store, activity: activity, defaultCounter: defaultCounter)
        self.init(
            bot: bot, allowed: allowed, store: store, commands: BotCommands(backend: backend), now: services.now,
            stopRequests: stopRequests, stranger: stranger, limited: limited)
    }
}

extension BotCommands.Backend {
    /// The answers' data from the run's services: the counters (kept `countersKeptFor` seconds),
    /// reports through the history database, the open alerts of `store`, charts by the services'
    /// rasterizer, explanations against the alert's baseline.
    package init(services: any RunServices, store: HistoryStore, activity: any Activity, defaultCounter: Int?) {
        let now = services.now
        self.init(
            counters: BotCommands.keptCounters(
                { try await CounterList.fetch(client: try await services.client(), search: nil, history: store).items },
                now: now),
            loader: { request in
                try await services.historyLoader(offline: false, unsettledDays: request.unsettledDays)
            },
            alerts: { try await AlertStatus(store: store).entries() },
            activity: activity, defaultCounter: defaultCounter, rasterizer: services.rasterizer,
            explain: { id, day in
                // The day (default yesterday in the counter's time zone) against the alert's baseline,
                // as `metrika explain --counter ID --date DAY`.
                let client = try await services.client()
                let request = try await Explain.request(
                    counterID: id, metric: nil, date: day, from: nil, to: nil, against: nil,
                    dimensions: nil, client: client, now: now(), weeks: try services.alertSettings().weeks)
                return try await Explain.run(request, client: client)
            }, now: now)
        self.annotations = { id, from, to in
            guard let loader = try? await services.historyLoader(offline: false) else { return [] }
            let read = await AnnotationText.annotations(counterID: id, on: from...to, loader: loader)
            guard case .success(let notes) = read else { return [] }
            return notes
        }
    }
}
