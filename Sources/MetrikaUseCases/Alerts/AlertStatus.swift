import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// `metrika alert --status` and `--forget ID`: the open episodes of both grains as the history
/// database holds them (what is still wrong, since when — a day, or a day and hour —, last told),
/// read offline, and forgetting one so that the next run of its check may tell it again.
package struct AlertStatus: Sendable {
    /// One open episode, with the names the history knows.
    package struct Entry: Sendable, Equatable {
        package var episode: AlertEpisode
        /// The counter's name as last stored (empty when the history has none).
        package var counterName: String
        /// `visits`, `goal "Заказ"`, `revenue`: as the alert's line says it.
        package var metricLabel: String
        /// The metric, when its API name is one metrika knows (for the unit of the values).
        package var metric: Metric?

        /// The short id shown in the list and taken by `--forget`.
        package var id: Int { episode.id ?? 0 }
        /// The latest value and expected value measured: the last run's, else those when it was told.
        package var latestValue: Double { episode.lastValue ?? episode.value }
        package var latestExpected: Double { episode.lastExpected ?? episode.expected }

        /// A value in the metric's unit, as the alert lines write it (`200`, `18 250.40 ₽`).
        package func valueText(_ value: Double) -> String {
            metric.map { AlertText.value(value, of: $0) } ?? AlertText.number(value)
        }

        /// An expected value as the alert lines say it (`~580`).
        package func expectedText(_ value: Double) -> String {
            "~" + (metric.map { AlertText.expected(value, of: $0) } ?? AlertText.approximate(value))
        }

        /// The entry as the list shows it (`AlertStatusList`).
        package var row: AlertStatusList.Row {
            AlertStatusList.Row(
                id: id, counterID: episode.counterID, counterName: counterName, metricLabel: metricLabel,
                apiName: episode.metric, kind: episode.kind,
                since: episode.since, lastDay: episode.lastDay, value: latestValue, expected: latestExpected,
                valueText: valueText(latestValue), expectedText: expectedText(latestExpected),
                toldValue: episode.value, toldExpected: episode.expected, toldAt: episode.notifiedAt,
                grain: episode.grain.rawValue,
                sinceHour: episode.grain == .hour ? episode.sinceHour : nil,
                lastHour: episode.grain == .hour ? episode.lastHour : nil)
        }
    }

    package let store: HistoryStore

    package init(store: HistoryStore) {
        self.store = store
    }

    /// Every open episode, daily and hourly, by counter and then in the order they were told. Reads
    /// only the history.
    package func entries() async throws -> [Entry] {
        let episodes = try await store.allOpenAlertEpisodes()
        guard !episodes.isEmpty else { return [] }
        let names = Dictionary(
            try await store.counters().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var goals: [Int: [Goal]] = [:]
        var entries: [Entry] = []
        for episode in episodes {
            let metric = Metric.named(episode.metric)
            var label = metric?.shortName ?? episode.metric
            if let goalID = metric?.goalID {
                if goals[episode.counterID] == nil {
                    goals[episode.counterID] = try await store.storedGoals(counterID: episode.counterID)?.goals ?? []
                }
                let name =
                    goals[episode.counterID]?.first { $0.id == goalID }?.name.trimmingCharacters(
                        in: .whitespacesAndNewlines) ?? ""
                label = name.isEmpty ? "goal \(goalID)" : "goal \"\(name)\""
            }
            entries.append(
                Entry(episode: episode, counterName: names[episode.counterID] ?? "", metricLabel: label, metric: metric)
            )
        }
        return entries
    }

    /// What `--forget` was given: one episode's id, or every episode.
    package enum Target: Sendable, Equatable {
        case id(Int)
        case all
    }

    /// Forgets `target`: the entries forgotten (empty for an id no open episode has).
    package func forget(_ target: Target) async throws -> [Entry] {
        let before = try await entries()
        switch target {
        case .all:
            _ = try await store.forgetAllAlertEpisodes()
            return before
        case .id(let id):
            guard let gone = try await store.forgetAlertEpisode(id: id) else { return [] }
            return before.filter { $0.episode.id == gone.id }
        }
    }
}
