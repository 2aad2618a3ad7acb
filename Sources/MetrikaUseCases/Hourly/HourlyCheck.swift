import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore

/// `metrika alert --today`'s work: for each counter, today's finished hours (in its time zone) of
/// visits and every goal's reaches, against the same hours of the same weekday of the previous weeks
/// (`HourlyHistory`, `HourlyDetector`), told once (`HourlyLedger`, remembered in `alert_episodes` as episodes of the hour grain).
/// One request per counter and run (its goals list about once a day, as the daily check reads it).
/// Told once as the daily check tells (`AlertCheck`): `run` only reads (a dry run); a run that tells
/// first `claim`s its news (overlapping runs tell each once), gives the claims back with `release`
/// when its webhook or mail failed (the next run tells them again), and `record`s the rest.
package struct HourlyCheck: Sendable {
    package let loader: HistoryLoader
    package let settings: AlertSettings
    package let activity: any Activity

    package init(loader: HistoryLoader, settings: AlertSettings, activity: any Activity) {
        self.loader = loader
        self.settings = settings
        self.activity = activity
    }

    /// One metric of one counter worth telling.
    package struct Finding: Sendable {
        package var counter: Counter
        package var metric: Metric
        /// The goal's name for goal metrics (server text), else nil.
        package var goalName: String?
        /// Today in the counter's time zone.
        package var day: Day
        package var judgement: HourlyJudgement
        package var notice: HourlyLedger.Notice
        /// What telling it changes in the history (the episode it opens or closes), claimed before it is told.
        package var change: EpisodeChange = .none
        /// What made a drop or a rise, the main one first (`HourlyDrivers`); empty otherwise.
        package var drivers: [AlertDriver] = []
    }

    package struct Outcome: Sendable {
        package var findings: [Finding] = []
        package var changes: [EpisodeChange] = []
        package var failures: [(counterID: Int, failure: any MetrikaFailure)] = []
        package var countersChecked = 0
        /// Reporting API requests spent on hours (the goals lists not counted).
        package var requests = 0
        /// Set when the API went away mid-run and the check stopped (see `AlertCheck.Outcome`).
        package var gaveUp: AlertCheckError?
    }

    /// Checks `counters` (at most `AlertCheck.parallelLimit` at once); a counter that fails is one
    /// failure among the others. Findings in the counters' order, then the metrics' (visits, goals).
    package func run(counters: [Counter], explain: Bool = true) async -> Outcome {
        let wanted = counters.filter { !settings.skippedCounters.contains($0.id) }
        for counter in counters where explain && settings.skippedCounters.contains(counter.id) {
            activity.note("Note: counter \(counter.id) is not checked: the config file's \"alerts\" skip it.")
        }
        let (results, gaveUp) = await AlertCheck.eachCounter(wanted, parallel: AlertCheck.parallelLimit, progress: "Checking today", activity: activity,
                                                             giveUp: AlertCheck.giveUp(loader)) { counter in
            try await check(counter, explain: explain)
        }
        activity.endProgress()
        var outcome = Outcome()
        for counter in wanted {
            switch results[counter.id] {
            case .success(let done)?:
                outcome.findings += done.findings
                outcome.changes += done.changes
                outcome.requests += done.requests
                outcome.countersChecked += 1
            case .failure(let failed)? where gaveUp == nil || !AlertCheck.countsAsGone(failed.failure):
                outcome.failures.append((counter.id, failed.failure))
            case .failure?, nil:
                break
            }
        }
        outcome.gaveUp = gaveUp.map { AlertCheck.hostGone($0, counters: wanted, results: results) }
        return outcome
    }

    /// Claims the news of `outcome`'s findings before anything is told (`EpisodeChange.claim`, as the
    /// daily check does): `outcome` keeps the findings this run won and the changes still to `record`.
    /// Returns the claims, to `release` when telling fails. Never called by a dry run.
    package func claim(_ outcome: inout Outcome) async throws -> [AlertClaim] {
        try await EpisodeChange.claim(&outcome.findings, changes: &outcome.changes, in: loader.store, news: Self.news, change: \.change)
    }

    /// Gives back `claims` whose news could not be told, so that the next run tells it again.
    package func release(_ claims: [AlertClaim]) async throws {
        try await EpisodeChange.release(claims, in: loader.store)
    }

    /// The news a finding tells: the episode it opens, or the one it closes.
    static func news(_ finding: Finding) -> AlertNews? {
        switch (finding.notice, finding.change) {
        case (.alert, .open(let episode)): return .open(episode)
        case (.backToNormal(let episode, _), .close): return .close(episode)
        default: return nil
        }
    }

    /// Remembers what `outcome` decided (one transaction).
    package func record(_ outcome: Outcome) async throws {
        try await EpisodeChange.record(outcome.changes, grain: .hour, in: loader.store)
    }

    /// The counts judged hour by hour: the settings' own count metrics (purchases and money are the
    /// daily check's), then every goal's reaches.
    func metrics(goals: [Goal]?) -> [(metric: Metric, goalName: String?)] {
        var metrics: [(metric: Metric, goalName: String?)] = settings.metrics.compactMap { metric in
            guard metric.unit == .count, !metric.needsCurrency, metric.apiName != Metric.purchases.apiName else { return nil }
            guard let id = metric.goalID else { return (metric, nil) }
            guard let goal = goals?.first(where: { $0.id == id }) else { return nil }
            return (metric, goal.name)
        }
        for goal in settings.checkGoals ? goals ?? [] : [] {
            guard let metric = Metric.named("goal\(goal.id)reaches"), !metrics.contains(where: { $0.metric.apiName == metric.apiName }) else { continue }
            metrics.append((metric, goal.name))
        }
        return metrics
    }

    func check(_ counter: Counter, explain: Bool) async throws -> (findings: [Finding], changes: [EpisodeChange], requests: Int) {
        let namesGoals = settings.metrics.contains { $0.goalID != nil }
        let goals: [Goal]? = settings.checkGoals || namesGoals ? try await AlertCheck(loader: loader, settings: settings, activity: activity).goals(of: counter) : []
        let metrics = metrics(goals: goals)
        guard !metrics.isEmpty else { return ([], [], 0) }
        let history = HourlyHistory(store: loader.store, client: loader.client, now: activity.now)
        let snapshot = try await history.load(counter: counter, metrics: metrics.map(\.metric))
        let open = try await loader.store.openEpisodes(counterID: counter.id, grain: .hour)
        var findings: [Finding] = []
        var changes: [EpisodeChange] = []
        var judged = 0
        for (index, (metric, goalName)) in metrics.enumerated() {
            let today = (0..<snapshot.finishedHours).map { snapshot.value(hour: $0, metric: index) }
            let weeks = snapshot.baselineHours.map { week in week.map { $0?[index] ?? nil } }
            let judgement = HourlyDetector.judge(today: today, finishedHours: snapshot.finishedHours, weeks: weeks, settings: settings)
            if judgement != nil { judged += 1 }
            let decision = HourlyLedger.decide(judgement, day: snapshot.today, today: today, counterID: counter.id, metric: metric.apiName,
                                               open: open[metric.apiName], now: activity.now(), settings: settings)
            changes.append(decision.change)
            if let notice = decision.notice, let judgement {
                findings.append(Finding(counter: counter, metric: metric, goalName: goalName, day: snapshot.today, judgement: judgement, notice: notice,
                                        change: decision.change))
            }
        }
        // A goal stopped with the visits says nothing their line does not: its episode is kept (so
        // it is not told later either), its line left out.
        let visitsStopped = findings.contains { $0.metric.apiName == Metric.visits.apiName && $0.notice == .alert(.stopped) }
        if visitsStopped { findings.removeAll { $0.metric.goalID != nil && $0.notice == .alert(.stopped) } }
        // Episodes of metrics no longer checked (a goal deleted) are forgotten, unless the goals are unknown.
        let checked = Set(metrics.map(\.metric.apiName))
        for metric in open.keys.sorted() where !checked.contains(metric) && (goals != nil || Metric.named(metric)?.goalID == nil) {
            changes.append(.close(counterID: counter.id, metric: metric))
        }
        if judged == 0, explain {
            activity.note("Note: counter \(counter.id) was not judged today: \(snapshot.finishedHours == 0 ? "no hour of today has finished yet" : "its last hours have too little history or traffic to judge").")
        }
        return (findings, changes, snapshot.requests)
    }
}
