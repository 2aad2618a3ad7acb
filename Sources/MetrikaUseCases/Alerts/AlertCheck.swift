import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore

/// The alert check over a grain, judged against the same weekday of earlier weeks (`AlertDetector`)
/// and told once (`AlertLedger`, remembered in the history database as episodes of that grain):
/// - a day (`metrika alert`): for each counter, the last finished day (in its time zone) of visits, a
///   shop's purchases and revenue and every goal's reaches; it reads the history and fetches only
///   what it lacks, like `sync`;
/// - an hour (`metrika alert --today`): the last finished hours (across midnight) of visits and every goal's reaches
///   against the same hours of the same weekday (`HourlyHistory`): one request per counter and run.
///
/// `run` only reads (a dry run, the MCP tool); a run that tells first `claim`s its news (overlapping
/// runs tell each once), gives the claims back with `release` when its webhook or mail failed (the
/// next run tells them again), and `record`s the rest once told.
package struct AlertCheck: Sendable {
    package let loader: HistoryLoader
    package let settings: AlertSettings
    package let activity: any Activity
    /// What is judged: the last finished day, or the last finished hours (across midnight).
    package let grain: AlertEpisode.Grain
    /// `--currency`: a shop's revenue in this currency (default: the counter's own).
    package var currency: Currency?
    /// Counters checked at once (at most `parallelLimit`); 1 where several checks may run together
    /// (the MCP server runs up to 3 tool calls at once, and together they must stay within the quota).
    package var parallelism = AlertCheck.parallelLimit

    /// Counters checked at once: Metrika allows 3 parallel requests per user.
    package static let parallelLimit = 3
    /// How old the stored goals list may be before it is read again.
    package static let goalsMaxAge: TimeInterval = 20 * 3600
    /// Metrics per request: the API takes 20, and the history stores visits and pageviews beside them.
    static let metricsPerRequest = 18

    package init(
        loader: HistoryLoader, settings: AlertSettings, activity: any Activity,
        grain: AlertEpisode.Grain = .day
    ) {
        self.loader = loader
        self.settings = settings
        self.activity = activity
        self.grain = grain
    }

    /// One metric of one counter worth telling.
    package struct Finding: Sendable {
        package var counter: Counter
        package var metric: Metric
        /// The goal's name for goal metrics (server text), else nil.
        package var goalName: String?
        package var judgement: AlertJudgement
        package var notice: AlertLedger.Notice
        /// A day's days before and including the judged one (35 of them, for the chart): nil = unknown.
        package var recent: [(day: Day, value: Double?)] = []
        /// Whether the judged day ended so recently that its numbers may still grow (data lag; days only).
        package var provisional = false
        /// What telling it changes in the history (the episode it opens or closes), claimed before it is told.
        package var change: EpisodeChange = .none
        /// What made a drop or a rise (`AlertDrivers`), the main driver first; empty when unknown.
        package var drivers: [AlertDriver] = []
        /// The owner's chart annotations on the judged day (`AnnotationText`), shown under the line.
        package var annotations: [Annotation] = []

        /// The judged day (the hour grain: today in the counter's time zone).
        package var day: Day { judgement.day }
        package var grain: AlertEpisode.Grain { judgement.grain }
    }

    /// What a run found, and what it would remember.
    package struct Outcome: Sendable {
        package var findings: [Finding] = []
        package var changes: [EpisodeChange] = []
        /// Counters that could not be checked, with why (the others were).
        package var failures: [(counterID: Int, failure: any MetrikaFailure)] = []
        package var countersChecked = 0
        /// Reporting API requests the hour grain spent on hours (the goals lists not counted; 0 for days).
        package var requests = 0
        /// Set when the API went away mid-run and the check stopped (`AlertCheckError.hostGone`); the
        /// counters it left are neither in `failures` nor checked.
        package var gaveUp: AlertCheckError?
    }

    /// Checks `counters` (at most `parallelism` at once); a counter that fails is one failure among
    /// the others. Findings come in the counters' order, then the metrics' (visits, purchases and
    /// revenue, then goals).
    /// `explain`: say on stderr why a counter could not be judged (too young, no history) — for
    /// counters the user named; a cron run over every counter stays quiet about them.
    package func run(counters: [Counter], explain: Bool = true) async -> Outcome {
        let wanted = counters.filter { !settings.skippedCounters.contains($0.id) }
        for counter in counters where explain && settings.skippedCounters.contains(counter.id) {
            activity.note("Note: counter \(counter.id) is not checked: the config file's \"alerts\" skip it.")
        }
        let progress = grain == .day ? "Checking" : "Checking today"
        let (results, gaveUp) = await Self.eachCounter(
            wanted, parallel: min(parallelism, Self.parallelLimit), progress: progress,
            activity: activity,
            giveUp: Self.giveUp(loader)
        ) { counter in
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
            case .failure(let failed)? where gaveUp == nil || !Self.countsAsGone(failed.failure):
                outcome.failures.append((counter.id, failed.failure))
            case .failure?, nil:
                break
            }
        }
        outcome.gaveUp = gaveUp.map { Self.hostGone($0, counters: wanted, results: results) }
        return outcome
    }

    /// Counters in a row that could not reach the API before a run stops (`ConnectionGiveUp`).
    static let giveUpLimit = 3

    /// The rule that ends a run whose API went away, and the host it watches (as the line names it);
    /// nil offline.
    static func giveUp(_ loader: HistoryLoader) -> (rule: ConnectionGiveUp, host: String)? {
        loader.client.map { (ConnectionGiveUp(limit: giveUpLimit), $0.baseURL.host ?? $0.baseURL.absoluteString) }
    }

    /// A counter the give-up left unchecked: its check failed on the connection, or was cancelled
    /// when the run gave up.
    static func countsAsGone(_ failure: any MetrikaFailure) -> Bool {
        ConnectionGiveUp.isConnectionFailure(failure) || (failure as? AlertCheckError) == .interrupted
    }

    /// The one failure of a run that gave up: which counters were checked and which were not.
    static func hostGone<Result>(
        _ rule: ConnectionGiveUp, counters: [Counter], results: [Int: Swift.Result<Result, CounterFailure>]
    ) -> AlertCheckError {
        var checked: [Int] = []
        var unchecked: [Int] = []
        for counter in counters {
            switch results[counter.id] {
            case .success?: checked.append(counter.id)
            case .failure(let failed)? where !countsAsGone(failed.failure): checked.append(counter.id)
            default: unchecked.append(counter.id)
            }
        }
        return .hostGone(
            host: rule.host ?? "the API", limit: rule.limit, reason: rule.lastReason ?? "no connection",
            checked: checked, unchecked: unchecked)
    }

    /// Runs `work` for each of `counters`, at most `parallel` at once, telling `progress: n/N counters`
    /// as they end: each counter's result by id, a counter whose work threw as `failed` with the
    /// error in words a person reads (the check of either grain).
    /// With `giveUp` (a rule and the host of the requests), the run stops after its limit of counters
    /// in a row could not reach the host: no counter is started after it, those in flight are
    /// cancelled, and the rule that gave up is returned (nil: every counter ran).
    static func eachCounter<Result: Sendable>(
        _ counters: [Counter], parallel: Int, progress: String, activity: any Activity,
        giveUp: (rule: ConnectionGiveUp, host: String)? = nil,
        _ work: @escaping @Sendable (Counter) async throws -> Result
    ) async -> (results: [Int: Swift.Result<Result, CounterFailure>], gaveUp: ConnectionGiveUp?) {
        var results: [Int: Swift.Result<Result, CounterFailure>] = [:]
        var rule = giveUp?.rule
        let host = giveUp?.host
        await withTaskGroup(of: (Int, Swift.Result<Result, CounterFailure>).self) { group in
            var next = 0
            func launch() {
                let counter = counters[next]
                next += 1
                group.addTask {
                    do {
                        return (counter.id, .success(try await work(counter)))
                    } catch {
                        return (counter.id, .failure(CounterFailure(failure: AlertCheckError.wrapping(error))))
                    }
                }
            }
            while next < min(max(1, parallel), counters.count) { launch() }
            while let (id, result) = await group.next() {
                results[id] = result
                if var running = rule, let host, !running.gaveUp {
                    let failure: (any MetrikaFailure)?
                    if case .failure(let failed) = result { failure = failed.failure } else { failure = nil }
                    if running.record(failure, host: host, naming: activity.naming) { group.cancelAll() }
                    rule = running
                }
                if rule?.gaveUp == true { continue }
                activity.progress(
                    "\(progress): \(results.count)/\(counters.count) counters", done: results.count,
                    total: counters.count)
                if next < counters.count { launch() }
            }
        }
        return (results, rule?.gaveUp == true ? rule : nil)
    }

    /// Why one counter could not be checked (an `Error` box for `Result`).
    struct CounterFailure: Error {
        var failure: any MetrikaFailure
    }

    /// Claims the news of `outcome`'s findings before anything is told (`EpisodeChange.claim`):
    /// `outcome` keeps the findings this run won and the changes still to `record`. Returns the
    /// claims, to `release` when telling fails. Never called by a dry run.
    package func claim(
        _ outcome: inout Outcome, queue: ([Finding], [AlertClaim]) -> [OutboxMessage] = { _, _ in [] }
    ) async throws -> [AlertClaim] {
        try await EpisodeChange.claim(
            &outcome.findings, changes: &outcome.changes, in: loader.store,
            news: { AlertLedger.news($0.notice, $0.change) }, change: \.change, queue: queue)
    }

    /// Gives back `claims` whose news could not be told, so that the next run tells it again.
    package func release(_ claims: [AlertClaim], droppingBatch batch: String? = nil) async throws {
        try await EpisodeChange.release(claims, in: loader.store, droppingBatch: batch)
    }

    /// Remembers what `outcome` decided (one transaction): told anomalies stay silent from now on.
    package func record(_ outcome: Outcome) async throws {
        try await EpisodeChange.record(outcome.changes, grain: grain, in: loader.store)
    }

    // MARK: - One counter

    /// The last finished day in the counter's time zone.
    package func judgedDay(for counter: Counter) -> Day {
        loader.metrikaToday(counter).adding(days: -1)
    }

    /// One counter's findings and the changes to its episodes of the check's grain; `requests`: the
    /// hour grain's Reporting requests.
    typealias Checked = (findings: [Finding], changes: [EpisodeChange], requests: Int)

    func check(_ counter: Counter, explain: Bool) async throws -> Checked {
        switch grain {
        case .day: return try await checkDay(counter, explain: explain)
        case .hour: return try await checkHours(counter, explain: explain)
        }
    }

    /// The last finished day of `counter`: every metric judged against the same weekday of earlier weeks.
    func checkDay(_ counter: Counter, explain: Bool) async throws -> Checked {
        let day = judgedDay(for: counter)
        let firstDay = day.adding(days: -7 * max(settings.weeks, 5))
        guard let range = DateRange(from: firstDay, to: day) else { return ([], [], 0) }
        // nil: the goals could not be read (and none were stored): their episodes are left alone.
        let namesGoals = settings.metrics.contains { $0.goalID != nil }
        let goals: [Goal]? = settings.checkGoals || namesGoals ? try await goals(of: counter) : []
        let goalsKnown = goals != nil
        // Money needs the counter's currency first: revenue is loaded in a second pass, for shops only.
        let wantsRevenue = settings.metrics.contains { $0.needsCurrency } || settings.checkShop
        // A goal the config names is one counter's: checked where the counter has it (another
        // counter's API would refuse the whole request), left out while the goals list is unknown.
        var metrics: [(metric: Metric, goalName: String?)] = settings.metrics.filter { !$0.needsCurrency }.compactMap {
            metric in
            guard let id = metric.goalID else { return (metric, nil) }
            guard let goal = goals?.first(where: { $0.id == id }) else { return nil }
            return (metric, goal.name)
        }
        let implicitPurchases = !settings.metrics.contains { $0.apiName == Metric.purchases.apiName }
        if wantsRevenue, implicitPurchases { metrics.append((.purchases, nil)) }
        for goal in settings.checkGoals ? goals ?? [] : [] {
            guard let metric = Metric.named("goal\(goal.id)reaches"),
                !metrics.contains(where: { $0.metric.apiName == metric.apiName })
            else { continue }
            metrics.append((metric, goal.name))
        }
        // Offline, a history filled before purchases were checked (or by `sync`) lacks them, and the
        // store serves a day only with all its metrics: purchases are read on their own there.
        let apart = loader.client == nil && implicitPurchases
        // Revenue rides in the counter's one request: in its currency when the history knows the counter
        // as a shop (its currency remembered, its revenue kept), else — online, no currency asked — in
        // "the counter's currency", which the answer names. A shop costs no request of its own.
        var knownRevenue = wantsRevenue ? try await knownShopRevenue(of: counter, range: range) : nil
        if wantsRevenue, knownRevenue == nil, currency == nil, loader.client != nil, !apart {
            knownRevenue = Metric.revenue
        }
        var series: [String: [Day: Double]]
        do {
            let asked = metrics.map(\.metric).filter { !apart || $0.apiName != Metric.purchases.apiName }
            do {
                series = try await load(asked + (knownRevenue.map { [$0] } ?? []), counter: counter, range: range)
            } catch HistoryError.currencyNotSaid where knownRevenue?.needsCurrency == true {
                // An answer that names no currency: the rest again without revenue, which is then asked
                // on its own (and said when it cannot be had).
                knownRevenue = nil
                series = try await load(asked, counter: counter, range: range)
            }
        } catch APIError.badRequest
            where implicitPurchases && !apart
            && metrics.contains(where: { $0.metric.apiName == Metric.purchases.apiName })
        {
            // An API that refuses e-commerce metrics for a counter without e-commerce must not cost
            // its visits and goals: asked again without purchases, it is no shop.
            metrics.removeAll { $0.metric.apiName == Metric.purchases.apiName }
            series = try await load(metrics.map(\.metric), counter: counter, range: range)
        }
        if apart, metrics.contains(where: { $0.metric.apiName == Metric.purchases.apiName }) {
            series.merge(try await load([.purchases], counter: counter, range: range)) { $1 }
        }
        // A shop: purchases on some day of the loaded weeks. Its revenue, in orders' worth: the typical
        // order is the weeks' revenue over their purchases (the judged day left out).
        var unitSizes: [String: Double] = [:]
        let purchases = series[Metric.purchases.apiName] ?? [:]
        let isShop = wantsRevenue && purchases.values.contains(where: { $0 > 0 })
        // Revenue that came with the visits is used as it came; else it is asked on its own.
        if knownRevenue?.needsCurrency == true {
            // The answer's currency: the revenue series now kept under its name.
            knownRevenue = try await loader.store.counterCurrencySeen(id: counter.id).map {
                Metric.revenue.inCurrency($0.currency)
            }
        }
        var shopRevenue: ([Metric], [String: [Day: Double]])? = knownRevenue.flatMap { known in
            series[known.apiName].map { ([known], [known.apiName: $0]) }
        }
        if isShop, shopRevenue == nil { shopRevenue = try await revenue(of: counter, range: range) }
        if isShop, let (priced, loaded) = shopRevenue {
            for metric in priced {
                let revenue = loaded[metric.apiName] ?? [:]
                series[metric.apiName] = revenue
                let days = revenue.keys.filter { $0 < day && (purchases[$0] ?? 0) > 0 }
                let orders = days.reduce(0.0) { $0 + (purchases[$1] ?? 0) }
                let money = MoneySum.total(days.map { revenue[$0] ?? 0 })
                if orders > 0, money > 0 { unitSizes[metric.apiName] = money / orders }
                metrics.insert(
                    (metric, nil),
                    at: metrics.firstIndex { $0.metric.apiName == Metric.purchases.apiName }.map { $0 + 1 }
                        ?? metrics.count)
            }
        }
        // Purchases were loaded for revenue's sake: without the shop check they are told only when asked.
        if !settings.checkShop, implicitPurchases {
            metrics.removeAll { $0.metric.apiName == Metric.purchases.apiName }
        }

        let open = try await loader.store.openEpisodes(counterID: counter.id, grain: .day)
        // The hourly check's alerts, open and closed: a day whose trouble one of them told is its story.
        let hourly = try await loader.store.openEpisodes(counterID: counter.id, grain: .hour)
        let hourlyClosed = try await loader.store.closedHourEpisodes(counterID: counter.id)
        let provisional = try await isProvisional(day, counter: counter)
        var findings: [Finding] = []
        var changes: [EpisodeChange] = []
        var unjudged = 0
        // Purchases come before revenue: what they did today decides whether revenue's news is theirs.
        var purchasesToday: (kind: AlertKind?, notice: AlertLedger.Notice?)?
        for (metric, goalName) in metrics {
            let values = series[metric.apiName] ?? [:]
            let judged =
                metric.unit == .money
                ? unitSizes[metric.apiName].flatMap {
                    AlertDetector.judge(values, day: day, settings: settings, unitSize: $0)
                }
                : AlertDetector.judge(values, day: day, settings: settings)
            guard let judgement = judged else {
                unjudged += 1
                continue
            }
            let decision = AlertLedger.decide(
                judgement, counterID: counter.id, metric: metric.apiName, open: open[metric.apiName],
                now: activity.now())
            if metric.apiName == Metric.purchases.apiName { purchasesToday = (judgement.kind, decision.notice) }
            // The judged day and the 34 before it, for the chart.
            let recent = (0..<35).reversed().map { back -> (day: Day, value: Double?) in
                let past = day.adding(days: -back)
                return (past, values[past])
            }
            if case .open = decision.change, case .alert(let kind)? = decision.notice {
                if let told = hourly[metric.apiName], Self.sameStory(kind, told: told, day: day) {
                    // Told by the hourly check and still open there: not told again as a new drop, and
                    // no second episode (`--status` lists the one alert); one line continues its story,
                    // claimed on that alert once a day.
                    changes.append(.none)
                    findings.append(
                        Finding(
                            counter: counter, metric: metric, goalName: goalName, judgement: judgement,
                            notice: .continues(told, day: day), recent: recent, provisional: provisional))
                    continue
                }
                if hourlyClosed[metric.apiName, default: []].contains(where: {
                    Self.sameStory(kind, told: $0, day: day)
                }) {
                    // Told by the hourly check, which has seen it end since (back to normal at 17:00):
                    // the owner heard both; the day it dragged down is not a new drop.
                    changes.append(.none)
                    continue
                }
            }
            if Self.isRevenue(apiName: metric.apiName), let notice = decision.notice, let purchasesToday,
                Self.isEcho(notice, purchasesKind: purchasesToday.kind, purchasesNotice: purchasesToday.notice)
            {
                // Revenue that fell or stopped with the purchases says nothing their line does not. No
                // episode is opened for it, so it is judged afresh each day and told once it differs
                // (the orders are back and their worth is not).
                if case .open = decision.change { changes.append(.none) } else { changes.append(decision.change) }
                continue
            }
            changes.append(decision.change)
            if let notice = decision.notice {
                findings.append(
                    Finding(
                        counter: counter, metric: metric, goalName: goalName, judgement: judgement, notice: notice,
                        recent: recent, provisional: provisional, change: decision.change))
            }
        }
        // The visits' story going on says the goals' too (as the hourly check tells a stop of the visits alone).
        if findings.contains(where: { $0.metric.apiName == Metric.visits.apiName && Self.continues($0.notice) }) {
            findings.removeAll { $0.metric.goalID != nil && Self.continues($0.notice) }
        }
        // An episode of a metric no longer checked (a goal deleted, a metric taken out of the
        // settings) is forgotten, so it cannot silence that metric if it ever comes back. A goal whose
        // list could not be read, and a shop's purchases or revenue that were not loaded this run
        // (offline without them, a failed currency probe) are left alone: still checked, just not now.
        let checked = Set(metrics.map(\.metric.apiName))
        let shopConfigured = wantsRevenue || !implicitPurchases
        for metric in open.keys.sorted()
        where !checked.contains(metric) && (goalsKnown || Metric.named(metric)?.goalID == nil) {
            if shopConfigured, metric == Metric.purchases.apiName || Self.isRevenue(apiName: metric) { continue }
            changes.append(.close(counterID: counter.id, metric: metric))
        }
        if unjudged > 0, unjudged == metrics.count, explain {
            let weekday = Self.weekdayFullName(day)
            let created = firstDataDay(of: counter)
            if created > day.adding(days: -7 * settings.minimumWeeks) {
                activity.note(
                    "Note: counter \(counter.id) is too young to judge: it has fewer than \(settings.minimumWeeks) earlier \(weekday)s (created \(created.iso))."
                )
            } else {
                activity.note(
                    "Note: counter \(counter.id) was not checked: fewer than \(settings.minimumWeeks) earlier \(weekday)s have history\(loader.client == nil ? " (run without \(activity.naming[.offline]), or \(activity.naming.action(.fillHistory)), to fetch them)" : "")."
                )
            }
        }
        return (findings, changes, 0)
    }

    /// Whether `notice` goes on with an hourly alert's story.
    static func continues(_ notice: AlertLedger.Notice) -> Bool {
        if case .continues = notice { return true }
        return false
    }

    /// Whether a day's `kind` on `day` is the trouble an hour's episode `told` tells: the same
    /// direction (a drop or a stop; a rise), and the day within its span.
    package static func sameStory(_ kind: AlertKind, told: AlertEpisode, day: Day) -> Bool {
        guard told.grain == .hour, told.since <= day, day <= told.lastDay else { return false }
        let falls: Set<String> = [AlertKind.drop.rawValue, AlertKind.stopped.rawValue]
        return kind == .rise ? told.kind == AlertKind.rise.rawValue : falls.contains(told.kind)
    }

    /// The last finished hours of `counter` (across midnight: yesterday's and today's): the counts judged
    /// against the same hours of the same weekdays of earlier weeks, in one request (its goals list about once a day, as a day's check reads it).
    func checkHours(_ counter: Counter, explain: Bool) async throws -> Checked {
        let namesGoals = settings.metrics.contains { $0.goalID != nil }
        let goals: [Goal]? = settings.checkGoals || namesGoals ? try await goals(of: counter) : []
        let metrics = hourMetrics(goals: goals)
        guard !metrics.isEmpty else { return ([], [], 0) }
        let history = HourlyHistory(store: loader.store, client: loader.client, now: activity.now)
        let snapshot = try await history.load(counter: counter, metrics: metrics.map(\.metric))
        let open = try await loader.store.openEpisodes(counterID: counter.id, grain: .hour)
        var findings: [Finding] = []
        var changes: [EpisodeChange] = []
        var judged = 0
        for (index, (metric, goalName)) in metrics.enumerated() {
            // The last finished hours across midnight (yesterday's, then today's), judged as at midday;
            // the judgement then speaks of the day of its last hour (yesterday at 00:05).
            let window = snapshot.acrossMidnight(metric: index)
            let judgement = AlertDetector.judge(
                day: snapshot.yesterday, today: window.series, finishedHours: window.finished, weeks: window.weeks,
                settings: settings)?.endingOnItsLastDay()
            let today =
                judgement?.day == snapshot.yesterday
                ? Array(window.series.prefix(24)) : Array(window.series.dropFirst(24))
            if judgement != nil { judged += 1 }
            let decision = AlertLedger.decide(
                judgement, today: today, counterID: counter.id, metric: metric.apiName, open: open[metric.apiName],
                now: activity.now(), settings: settings)
            changes.append(decision.change)
            if let notice = decision.notice, let judgement {
                findings.append(
                    Finding(
                        counter: counter, metric: metric, goalName: goalName, judgement: judgement, notice: notice,
                        change: decision.change))
            }
        }
        // A goal stopped with the visits says nothing their line does not: its episode is kept (so
        // it is not told later either), its line left out.
        let visitsStopped = findings.contains {
            $0.metric.apiName == Metric.visits.apiName && $0.notice == .alert(.stopped)
        }
        if visitsStopped { findings.removeAll { $0.metric.goalID != nil && $0.notice == .alert(.stopped) } }
        // Episodes of metrics no longer checked (a goal deleted) are forgotten, unless the goals are unknown.
        let checked = Set(metrics.map(\.metric.apiName))
        for metric in open.keys.sorted()
        where !checked.contains(metric) && (goals != nil || Metric.named(metric)?.goalID == nil) {
            changes.append(.close(counterID: counter.id, metric: metric))
        }
        if judged == 0, explain {
            let why =
                snapshot.finishedHours == 0 && snapshot.yesterdayHours.allSatisfy { $0 == nil }
                ? "no hour of today has finished yet" : "its last hours have too little history or traffic to judge"
            activity.note("Note: counter \(counter.id) was not judged today: \(why).")
        }
        return (findings, changes, snapshot.requests)
    }

    /// The counts judged hour by hour: the settings' own count metrics (purchases and money are the
    /// day's), then every goal's reaches.
    func hourMetrics(goals: [Goal]?) -> [(metric: Metric, goalName: String?)] {
        var metrics: [(metric: Metric, goalName: String?)] = settings.metrics.compactMap { metric in
            guard metric.unit == .count, !metric.needsCurrency, metric.apiName != Metric.purchases.apiName else {
                return nil
            }
            guard let id = metric.goalID else { return (metric, nil) }
            guard let goal = goals?.first(where: { $0.id == id }) else { return nil }
            return (metric, goal.name)
        }
        for goal in settings.checkGoals ? goals ?? [] : [] {
            guard let metric = Metric.named("goal\(goal.id)reaches"),
                !metrics.contains(where: { $0.metric.apiName == metric.apiName })
            else { continue }
            metrics.append((metric, goal.name))
        }
        return metrics
    }

    /// A shop's revenue in `currency` (else its own), or nil with a warning when it cannot be had (the
    /// currency unknown, the request refused): its visits, goals and purchases are still judged.
    func revenue(of counter: Counter, range: DateRange) async throws -> ([Metric], [String: [Day: Double]])? {
        do {
            let priced = try await loader.inCurrency([Metric.revenue], counter: counter, requested: currency)
            let loaded = try await load(priced, counter: counter, range: range)
            if loader.client == nil, let metric = priced.first, loaded[metric.apiName]?.isEmpty ?? true {
                // Offline, revenue in a currency the history never fetched is not there to judge.
                activity.note(
                    "Warning: counter \(counter.id): its revenue was not checked: the history holds none in \(metric.currency?.code ?? "that currency") (run without \(activity.naming[.offline]) to fetch it)."
                )
            }
            return (priced, loaded)
        } catch let failure as any MetrikaFailure {
            if failure is StoreError { throw failure }
            activity.note(
                "Warning: counter \(counter.id): its revenue was not checked (\(activity.naming.message(of: failure)))."
            )
            return nil
        }
    }

    /// A shop's revenue metric in its currency when the history already knows both — the currency
    /// remembered within `HistoryLoader.currencyMemory` (or `--currency`) and some settled days of that
    /// revenue kept — so that it can ride in the counter's one request; nil otherwise (online only).
    func knownShopRevenue(of counter: Counter, range: DateRange) async throws -> Metric? {
        guard loader.client != nil else { return nil }
        let metric: Metric
        if let currency {
            metric = Metric.revenue.inCurrency(currency)
        } else {
            guard let remembered = try await loader.store.counterCurrencySeen(id: counter.id),
                abs(activity.now().timeIntervalSince(remembered.seenAt)) < HistoryLoader.currencyMemory
            else { return nil }
            metric = Metric.revenue.inCurrency(remembered.currency)
        }
        let kept = try await loader.store.settledDays(counterID: counter.id, range: range, metrics: [metric])
        return kept.isEmpty ? nil : metric
    }

    /// Revenue (`ym:s:ecommerce<CUR>ConvertedRevenue`), whose news may only echo the purchases'.
    static func isRevenue(apiName: String) -> Bool {
        apiName.hasPrefix("ym:s:ecommerce") && apiName.hasSuffix("ConvertedRevenue")
    }

    /// Whether revenue's `notice` is the purchases' news again: an anomaly of the kind the purchases
    /// have today (told today or going on since), or back to normal with them.
    package static func isEcho(
        _ notice: AlertLedger.Notice, purchasesKind: AlertKind?, purchasesNotice: AlertLedger.Notice?
    ) -> Bool {
        switch notice {
        case .alert(let kind): return purchasesKind == kind
        case .backToNormal:
            if case .backToNormal? = purchasesNotice { return true }
            return false
        case .continues:
            if case .continues? = purchasesNotice { return true }
            return false
        }
    }

    /// The daily values of `metrics` over `range` from the history (fetching what it lacks), by API
    /// name; the history store works per request's metrics: a counter with 40 goals takes three.
    func load(_ metrics: [Metric], counter: Counter, range: DateRange) async throws -> [String: [Day: Double]] {
        var series: [String: [Day: Double]] = [:]
        var start = 0
        while start < metrics.count {
            let chunk = Array(metrics[start..<min(metrics.count, start + Self.metricsPerRequest)])
            start += Self.metricsPerRequest
            let loaded = try await loader.load(
                counter: counter, range: range, metrics: chunk, grouping: nil, refresh: false, rangeTotals: false)
            for asked in chunk {
                // Revenue asked in "the counter's currency" comes back in the currency the answer named.
                let metric =
                    asked.needsCurrency
                    ? loaded.storedMetrics.first { $0.unit == .money && Self.isRevenue(apiName: $0.apiName) } ?? asked
                    : asked
                guard let index = loaded.storedMetrics.firstIndex(where: { $0.apiName == metric.apiName }) else {
                    continue
                }
                var values: [Day: Double] = [:]
                for (day, row) in loaded.daily where index < row.count {
                    if let value = row[index] { values[day] = value }
                }
                series[metric.apiName] = values
            }
        }
        return series
    }

    /// The counter's goals: the stored list while it is younger than `goalsMaxAge`, else read again
    /// (and stored). Offline, or when reading fails, an older stored list still serves; with none, the
    /// goals are left out with one warning and visits are still checked (a counter whose goals list
    /// cannot be read is no reason to miss that its traffic stopped).
    func goals(of counter: Counter) async throws -> [Goal]? {
        let stored = try await loader.store.storedGoals(counterID: counter.id)
        if let stored, activity.now().timeIntervalSince(stored.fetchedAt) < Self.goalsMaxAge { return stored.goals }
        guard let client = loader.client else { return stored?.goals }
        do {
            let goals = try await client.fetchGoals(counterID: counter.id)
            try await loader.store.storeGoals(counterID: counter.id, goals: goals, fetchedAt: activity.now())
            return goals
        } catch let failure as any MetrikaFailure {
            // An API that cannot be reached fails the counter's whole check: its one `Error:` line
            // says so, without a goals warning before it (two lines per counter where one is promised).
            if failure is StoreError || ConnectionGiveUp.isConnectionFailure(failure) || AlertRun.isPutOff(failure) {
                throw failure
            }
            activity.note(
                "Warning: counter \(counter.id): could not read its goals (\(activity.naming.message(of: failure))); \(stored == nil ? "only its visits are checked" : "using the list read before")."
            )
            return stored?.goals
        }
    }

    /// Whether the day ended so recently that its numbers may still grow: less than `settleHours`
    /// ago in the counter's time zone, or less than the API's `data_lag` of the latest fetch ago. A
    /// history database that cannot say the lag fails the counter's check, as its other reads do.
    func isProvisional(_ day: Day, counter: Counter) async throws -> Bool {
        let offset =
            TimeZone(identifier: counter.timeZoneName)?.secondsFromGMT(for: activity.now()) ?? counter
            .timeZoneOffsetMinutes * 60
        let endOfDay = Double(day.adding(days: 1).ordinal) * 86_400 - Double(offset)
        let lag = try await loader.store.latestDataLag(counterID: counter.id)
        return activity.now().timeIntervalSince1970 - endOfDay < max(Self.settleHours * 3600, lag ?? 0)
    }

    /// Hours after midnight during which yesterday's numbers are called provisional.
    package static let settleHours = 3.0

    /// `Sunday` for a day.
    package static func weekdayFullName(_ day: Day) -> String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][day.weekday - 1]
    }

    /// `Sun` for a day.
    package static func weekdayName(_ day: Day) -> String {
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][day.weekday - 1]
    }
}
