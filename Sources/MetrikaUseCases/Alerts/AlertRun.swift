import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import MetrikaSystem

/// One alert run, whoever asks (the CLI's `metrika alert`, MCP's `check_alerts`, the Telegram bot):
/// the settings of the config file, the counters to check, the check of a grain (the last finished
/// day, or the last finished hours), and for a run that tells, told once — each piece of news claimed
/// first (overlapping runs tell it once), then shown (`show`: the CLI's stdout) and handed to every
/// deliverer (webhook, mail, …), and given back when showing or a delivery failed, so the next run
/// tells it again. Entry points word its errors (`AlertRunError`) and show its result.
package struct AlertRun: Sendable {
    package let loader: HistoryLoader
    package let settings: AlertSettings
    package let activity: any Activity
    /// Where requests to stop come from while messages go (the CLI's SIGINT and SIGTERM): the message
    /// in flight is finished and the rest kept in the outbox (`DeliveryStop`).
    package var stopRequests: (any StopRequests)?
    /// Say each recipient served (a terminal, or --verbose).
    package var announce = false

    package init(loader: HistoryLoader, settings: AlertSettings, activity: any Activity) {
        self.loader = loader
        self.settings = settings
        self.activity = activity
    }

    /// What to check and how.
    package struct Request: Sendable {
        /// These counters only; empty: every counter the token can read (offline: in the history).
        package var counterIDs: [Int] = []
        /// Today's finished hours (the hour grain) instead of the last finished day.
        package var today = false
        /// Show the findings only: nothing claimed, delivered or remembered.
        package var dryRun = false
        /// A shop's revenue in this currency (a day's check only).
        package var currency: Currency?
        /// Say why a counter was not judged (a note per counter); the CLI's --verbose or named counters.
        package var explain = false
        /// At most this many counters checked at once (MCP: 1).
        package var parallelism = AlertCheck.parallelLimit
        /// Note each counter that could not be checked (`Error: counter …`) as it is found; off where
        /// the entry point reports the failures in its result (MCP).
        package var noteFailures = true
        /// Name each drop's or rise's driver (`AlertDrivers`: one Reporting request per alerted counter
        /// and dimension, none for days the history keeps; offline only from the history).
        package var drivers = true

        package init(
            counterIDs: [Int] = [], today: Bool = false, dryRun: Bool = false, currency: Currency? = nil,
            explain: Bool = false
        ) {
            self.counterIDs = counterIDs
            self.today = today
            self.dryRun = dryRun
            self.currency = currency
            self.explain = explain
        }
    }

    /// The findings of a run and their grain: what deliverers turn into their messages.
    package struct Findings: Sendable {
        package var grain: AlertEpisode.Grain
        package var all: [AlertCheck.Finding]

        package init(_ grain: AlertEpisode.Grain, _ all: [AlertCheck.Finding]) {
            self.grain = grain
            self.all = all
        }

        package var isEmpty: Bool { all.isEmpty }

        /// One line per finding (`AlertText`), each annotation of its day on a line of its own under it.
        package var lines: [String] { all.flatMap(AlertText.lines) }

        /// The subject of a message that tells them (`metrika: 2 alerts (…)`, `… today` for hours).
        package var subject: String { AlertText.subject(all) }

        /// The webhook's JSON (Slack's shape for a Slack URL).
        package func webhookBody(forSlack: Bool) -> Data { AlertText.webhookBody(all, forSlack: forSlack) }
    }

    /// What the run found and what became of it.
    package struct Result: Sendable {
        package var findings: Findings
        /// Counters that could not be checked (or read), each with its failure.
        package var failures: [(counterID: Int, failure: any MetrikaFailure)] = []
        package var countersChecked = 0
        /// Reporting API requests the check spent on hours (0 for a day).
        package var requests = 0
        /// Reporting API requests spent on the alerts' drivers.
        package var driverRequests = 0
        /// The first delivery that failed: its claims were given back (told again next run).
        package var deliveryFailure: (any MetrikaFailure)?
        /// Set when the API went away mid-run (`ConnectionGiveUp`): the counters checked before it are
        /// told as usual, the others are neither checked nor in `failures`; the entry point ends with it
        /// (one line, exit 69) instead of an `Error:` line per counter left.
        package var gaveUp: AlertCheckError?
    }

    // MARK: - Settings and counters

    /// The config file's `"alerts"` over the defaults; a metric that is not a count is refused (78).
    package static func settings(from config: AlertsConfig?) throws -> AlertSettings {
        var settings = AlertSettings()
        guard let config else { return settings }
        if let names = config.metrics {
            settings.metrics = try names.map { name in
                guard let metric = Metric.named(name),
                    (metric.unit == .count && (metric.goalID == nil || metric.apiName.hasSuffix("reaches")))
                        || metric.apiName == Metric.revenue.apiName
                else {
                    throw ConfigError.unjudgeableAlertMetric(name: name)
                }
                return metric
            }
        }
        if let goals = config.goals { settings.checkGoals = goals }
        if let shop = config.shop { settings.checkShop = shop }
        if let change = config.minimumChange { settings.minimumChangePercent = change }
        if let score = config.minimumScore { settings.minimumScore = score }
        if let weeks = config.weeks {
            settings.weeks = weeks
            settings.minimumWeeks = min(settings.minimumWeeks, weeks)
        }
        if let skip = config.skip { settings.skippedCounters = Set(skip) }
        return settings
    }

    /// Refuses a request the settings cannot serve (before any request is sent).
    package static func validate(_ request: Request, settings: AlertSettings) throws {
        if request.currency != nil, !settings.checkShop, !settings.metrics.contains(where: { $0.unit == .money }) {
            throw AlertRunError.currencyWithoutShop
        }
        if request.today, request.currency != nil { throw AlertRunError.currencyWithToday }
    }

    /// The counters to check: the given ids (one that cannot be read is a failure among the others),
    /// else every counter the token can read, with their goals (offline: every counter in the history). Ids the history
    /// does not know are read from the API: after `ConnectionGiveUp`'s limit of them in a row could not
    /// reach it, the run stops before any check (`AlertCheckError.hostGone`, nothing checked).
    package func counters(_ ids: [Int]) async throws -> (
        counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)]
    ) {
        guard ids.isEmpty else {
            var counters: [Counter] = []
            var failures: [(counterID: Int, failure: any MetrikaFailure)] = []
            let watched = AlertCheck.giveUp(loader)
            var rule = watched?.rule
            let host = watched?.host ?? ""
            for id in ids {
                do {
                    counters.append(try await loader.counter(id: id))
                    rule?.record(nil, host: host)
                } catch let failure as any MetrikaFailure {
                    failures.append((id, failure))
                    if rule?.record(failure, host: host, naming: activity.naming) == true, let rule {
                        throw AlertCheckError.hostGone(
                            host: host, limit: rule.limit, reason: rule.lastReason ?? "no connection", checked: [],
                            unchecked: ids)
                    }
                }
            }
            return (counters, failures)
        }
        guard let client = loader.client else {
            let stored = try await loader.store.counters()
            if stored.isEmpty { throw AlertRunError.noCountersOffline(path: loader.store.path) }
            return (stored.filter { $0.status.lowercased() != "deleted" }, [])
        }
        // The list brings every counter's goals (`field=goals`): stored as read now, the check asks no
        // counter for its goals (`AlertCheck.goals(of:)` finds them fresh).
        let list = try await client.fetchCounterListWithGoals()
        if let warning = list.warning { activity.note(warning) }
        try await loader.store.upsertCounters(list.counters)
        try await loader.store.storeGoals(list.goals, fetchedAt: loader.now())
        return (list.counters.filter { $0.status.lowercased() != "deleted" }, [])
    }

    // MARK: - The run

    /// Checks, then (unless a dry run) claims, shows, delivers and remembers. `show` gets the lines
    /// of the news this run won (a throw gives the claims back and ends the run with that error);
    /// every deliverer gets the findings when there are any, in order; a delivery that fails with a
    /// `MetrikaFailure` is noted (`AlertDeliverer.failureNote`) and the others still run, then the
    /// claims are given back. Counter failures are noted as they are found.
    package func run(_ request: Request, deliverers: [any AlertDeliverer] = [], show: ([String]) throws -> Void)
        async throws -> Result
    {
        try Self.validate(request, settings: settings)
        let (counters, unread) = try await counters(request.counterIDs)
        return try await run(request, counters: counters, unread: unread, deliverers: deliverers, show: show)
    }

    /// `run` over counters chosen already (`counters`; `unread`: those that could not be read).
    package func run(
        _ request: Request, counters: [Counter], unread: [(counterID: Int, failure: any MetrikaFailure)],
        deliverers: [any AlertDeliverer] = [], show: ([String]) throws -> Void
    ) async throws -> Result {
        try Self.validate(request, settings: settings)
        // One watch for the run (a signal trap cannot be set twice in a process): a stop ends the
        // check at once (nothing claimed), and a delivery after the message in flight.
        let stop = DeliveryStop()
        let unwatch = request.dryRun ? nil : stopRequests?.watch { stop.request($0) }
        defer { unwatch?() }
        // What an earlier run left in the outbox goes first.
        var earlier = OutboxDelivery.Report()
        if !request.dryRun {
            earlier = try await deliver(deliverers, stop: stop)
            if let signal = earlier.stoppedBy {
                throw Interruption(signal: signal, account: Self.stoppedAccount(earlier))
            }
        }
        var check = AlertCheck(
            loader: loader, settings: settings, activity: activity,
            grain: request.today ? .hour : .day)
        check.currency = request.currency
        check.parallelism = request.parallelism
        let checking = check
        let explain = request.explain
        var outcome = try await stop.interruptible { await checking.run(counters: counters, explain: explain) }
        if let signal = stop.signal {
            throw Interruption(signal: signal, account: "Stopped: nothing was told; the next run checks again.")
        }
        outcome.failures = unread + outcome.failures
        if request.noteFailures { noteFailures(outcome.failures) }
        var result = Result(
            findings: Findings(check.grain, outcome.findings), failures: outcome.failures,
            countersChecked: outcome.countersChecked, requests: outcome.requests, gaveUp: outcome.gaveUp)
        if request.dryRun {
            result.driverRequests = await attachDrivers(&outcome.findings, request)
            await attachAnnotations(&outcome.findings, request)
            result.findings.all = outcome.findings
            try show(result.findings.lines)
            return result
        }
        // Explained before the claim: the messages are made whole in the claim's transaction (an
        // overlapping run that wins some of this news spends those requests for nothing).
        result.driverRequests = await attachDrivers(&outcome.findings, request)
        // What is slow in a message (charts) is drawn now, for the findings of any news.
        await attachAnnotations(&outcome.findings, request)
        let all = Findings(check.grain, outcome.findings)
        var drafting: [(deliverer: any AlertDeliverer, drafts: AlertDrafting)] = []
        if !all.isEmpty {
            for deliverer in deliverers { drafting.append((deliverer, try await deliverer.prepare(all))) }
        }
        let batch = "alert:" + UUID().uuidString.lowercased()
        let grain = check.grain
        let now = activity.now()
        // Claimed before anything is told, and in the same transaction every message that tells it is
        // written to the outbox: of overlapping runs, only the one that claimed an alert tells it,
        // and a run that dies after the claim leaves its messages for the next run to deliver.
        let claims = try await check.claim(&outcome) { won, claims in
            let episodes = claims.compactMap(\.news.episode.id)
            let findings = Findings(grain, won)
            return drafting.flatMap { deliverer, drafts in
                drafts(findings).map { $0.message(batch: batch, sender: deliverer, episodes: episodes, at: now) }
            }
        }
        result.findings.all = outcome.findings
        do {
            try show(result.findings.lines)
        } catch {
            // Not shown: nothing of it is told, so it is given back (the next run tells it again).
            try? await check.release(claims, droppingBatch: batch)
            throw error
        }
        try await check.record(outcome)
        let report = try await deliver(deliverers, stop: stop)
        result.deliveryFailure = earlier.failure ?? report.failure
        if let signal = report.stoppedBy {
            throw Interruption(signal: signal, account: Self.stoppedAccount(report))
        }
        return result
    }

    /// Sends what the outbox holds for `deliverers`' routes (this run's news and an earlier run's
    /// left over); a `stop` (the run's SIGTERM) finishes the message in flight and keeps the rest
    /// for the next run.
    package func deliver(_ deliverers: [any AlertDeliverer], stop: DeliveryStop? = nil) async throws
        -> OutboxDelivery.Report
    {
        guard !deliverers.isEmpty else { return OutboxDelivery.Report() }
        var delivery = OutboxDelivery(store: loader.store, senders: deliverers, activity: activity, stop: stop)
        delivery.announce = announce
        return try await delivery.flush()
    }

    /// What a stopped delivery kept: `Stopped: 3 messages kept in the outbox; the next run sends them.`
    package static func stoppedAccount(_ report: OutboxDelivery.Report) -> String {
        "Stopped: \(OutboxDelivery.messages(report.kept)) kept in the outbox; the next run sends "
            + (report.kept == 1 ? "it." : "them.")
    }

    /// Gives each drop and rise its drivers when the run asks for them (`AlertDrivers`: hours online
    /// only, as today is never kept by segment); the requests made.
    private func attachDrivers(_ findings: inout [AlertCheck.Finding], _ request: Request) async -> Int {
        var drivers = AlertDrivers(loader: loader, activity: activity, verbose: request.explain)
        guard request.drivers, findings.contains(where: drivers.wantsDriver) else { return 0 }
        drivers.weeks = settings.weeks
        let (explained, requests) = await drivers.attach(findings)
        findings = explained
        return requests
    }

    /// Gives each alert the owner's chart annotations on its day: at most one Management request per
    /// alerted counter, none when read within the hour (`HistoryLoader.annotations`); offline, the kept
    /// ones. Annotations that cannot be read leave the alert as it was (a note with --verbose or a
    /// named counter); they are context, never a reason to fail.
    private func attachAnnotations(_ findings: inout [AlertCheck.Finding], _ request: Request) async {
        var read: [Int: [Annotation]] = [:]
        for index in findings.indices {
            guard case .alert = findings[index].notice else { continue }
            let counter = findings[index].counter.id
            if read[counter] == nil {
                let days = findings.filter { $0.counter.id == counter }.map(\.day)
                switch await AnnotationText.annotations(
                    counterID: counter, on: days.min()!...days.max()!, loader: loader)
                {
                case .success(let notes): read[counter] = notes
                case .failure(let error):
                    read[counter] = []
                    if request.explain {
                        let reason = (error as? any MetrikaFailure).map(activity.naming.message(of:)) ?? "\(error)"
                        activity.note("Note: counter \(counter)'s chart annotations could not be read: \(reason)")
                    }
                }
            }
            findings[index].annotations = (read[counter] ?? []).filter { $0.day == findings[index].day }
        }
    }

    private func noteFailures(_ failures: [(counterID: Int, failure: any MetrikaFailure)]) {
        var putOff: [Int] = []
        var reasons: [String] = []
        for (id, failure) in failures {
            if case .quotaPutOff(let login, let limit, let seconds)? = failure as? APIError {
                putOff.append(id)
                let reason = "login \(login) has used its \(limit), for \(APIError.describeWait(seconds)) more"
                if !reasons.contains(reason) { reasons.append(reason) }
                continue
            }
            activity.note("Error: counter \(id): \(activity.naming.message(of: failure))")
        }
        // The quota ledger put them off: one line for all of them, left for the next run.
        if !putOff.isEmpty {
            activity.note(
                "Note: \(putOff.count) counter\(putOff.count == 1 ? "" : "s") left for the next run (\(reasons.joined(separator: "; "))): \(putOff.map(String.init).joined(separator: ", "))."
            )
        }
    }

    /// Whether `failure` only put a counter off for the next run (the quota ledger), not failed it.
    package static func isPutOff(_ failure: any MetrikaFailure) -> Bool {
        if case .quotaPutOff? = failure as? APIError { return true }
        return false
    }
}

/// One way alerts leave the machine (a webhook, a mail, a Telegram chat): a new channel is one
/// deliverer handed to `AlertRun.run`. Its messages go through the outbox: drafted when the news is
/// claimed (in the claim's transaction), sent by `send`, marked delivered once the channel accepted.
package protocol AlertDeliverer: OutboxSender {
    /// Draws what is slow (charts) for `findings`, before their news is claimed; returns the drafts
    /// of the messages that tell any part of them, one per recipient and piece (called inside the
    /// claim's transaction: it must not block).
    func prepare(_ findings: AlertRun.Findings) async throws -> AlertDrafting
    /// One sample message per recipient (`metrika alert --test`).
    func sampleDrafts(now: Date) -> [OutboxDraft]
}

/// A deliverer's messages for the findings a run won.
package typealias AlertDrafting = @Sendable (AlertRun.Findings) -> [OutboxDraft]

/// The webhook as a deliverer: one JSON body per run that found something.
package struct WebhookDeliverer: AlertDeliverer {
    package let webhook: Webhook

    package init(_ webhook: Webhook) { self.webhook = webhook }

    package var channel: OutboxMessage.Channel { .webhook }
    /// Whichever webhook the run has: one fixed since (a new URL) gets what the old one did not take.
    package var route: String { "webhook" }

    package func prepare(_ findings: AlertRun.Findings) async throws -> AlertDrafting {
        let slack = webhook.isSlack
        return { findings in
            [OutboxDraft(recipient: "webhook", kind: "json", body: findings.webhookBody(forSlack: slack))]
        }
    }

    package func send(_ message: OutboxMessage) async throws {
        try await webhook.send(message.body)
    }

    /// 404 and 410 (the hook was deleted), 401 and 403 (refused): given up; the rest retried.
    package func verdict(_ failure: any MetrikaFailure) -> DeliveryVerdict {
        if case .refused(_, let status, _) = failure as? WebhookError, [401, 403, 404, 410].contains(status) {
            return .refused
        }
        return .transient
    }

    package func name(of recipient: String) -> String { "the webhook \(webhook.masked)" }
}

/// Why an alert run was refused before it checked anything; each entry point words it in its own
/// terms (the CLI with its options, MCP with its arguments).
package enum AlertRunError: Error, Equatable {
    /// A currency was asked for, but the settings check no revenue.
    case currencyWithoutShop
    /// A currency was asked for with the hourly check, which judges no revenue.
    case currencyWithToday
    /// Offline without counters named, and the history at `path` holds none.
    case noCountersOffline(path: String)
}
