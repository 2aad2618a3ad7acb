import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import MetrikaSystem

/// One alert run, whoever asks (the CLI's `metrika alert`, MCP's `check_alerts`, the Telegram bot):
/// the settings of the config file, the counters to check, the check of a grain (the last finished
/// day, or today's finished hours), and for a run that tells, told once — each piece of news claimed
/// first (overlapping runs tell it once), then shown (`show`: the CLI's stdout) and handed to every
/// deliverer (webhook, mail, …), and given back when showing or a delivery failed, so the next run
/// tells it again. Entry points word its errors (`AlertRunError`) and show its result.
package struct AlertRun: Sendable {
    package let loader: HistoryLoader
    package let settings: AlertSettings
    package let activity: any Activity

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
        package var lines: [String] {
            all.flatMap { finding in
                [AlertText.line(finding)] + finding.annotations.map { "  " + AnnotationText.line($0) }
            }
        }

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
    /// else every counter the token can read (offline: every counter in the history). Ids the history
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
        let list = try await client.fetchCounterList()
        if let warning = list.warning { activity.note(warning) }
        try await loader.store.upsertCounters(list.counters)
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
        var check = AlertCheck(
            loader: loader, settings: settings, activity: activity,
            grain: request.today ? .hour : .day)
        check.currency = request.currency
        check.parallelism = request.parallelism
        var outcome = await check.run(counters: counters, explain: request.explain)
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
        // Claimed before anything is told: of overlapping runs, only the one that claimed an alert tells it.
        let claims = try await check.claim(&outcome)
        // Explained once claimed: only the news this run tells costs requests.
        result.driverRequests = await attachDrivers(&outcome.findings, request)
        await attachAnnotations(&outcome.findings, request)
        result.findings.all = outcome.findings
        // Told (shown, then delivered); given back when that fails, else recorded.
        result.deliveryFailure = try await tell(
            result.findings, deliverers: deliverers, show: show, release: { try await check.release(claims) })
        if result.deliveryFailure == nil { try await check.record(outcome) }
        return result
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

    /// Gives each alert the owner's chart annotations on its day: one Management request per alerted
    /// counter, none offline. Annotations that cannot be read leave the alert as it was (a note with
    /// --verbose or a named counter); they are context, never a reason to fail.
    private func attachAnnotations(_ findings: inout [AlertCheck.Finding], _ request: Request) async {
        guard let client = loader.client else { return }
        var read: [Int: [Annotation]] = [:]
        for index in findings.indices {
            guard case .alert = findings[index].notice else { continue }
            let counter = findings[index].counter.id
            if read[counter] == nil {
                let days = findings.filter { $0.counter.id == counter }.map(\.day)
                switch await AnnotationText.annotations(
                    counterID: counter, on: days.min()!...days.max()!, client: client)
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
        for (id, failure) in failures { activity.note("Error: counter \(id): \(activity.naming.message(of: failure))") }
    }

    /// Shows and delivers claimed news; gives the claims back when that fails. The first delivery
    /// failure, or nil when everything was told (the caller records it).
    private func tell(
        _ findings: Findings, deliverers: [any AlertDeliverer], show: ([String]) throws -> Void,
        release: () async throws -> Void
    ) async throws -> (any MetrikaFailure)? {
        do {
            try show(findings.lines)
        } catch {
            try? await release()
            throw error
        }
        guard !findings.isEmpty else { return nil }
        var failed: (any MetrikaFailure)?
        for deliverer in deliverers {
            do {
                try await deliverer.deliver(findings)
            } catch let failure as any MetrikaFailure {
                activity.note(deliverer.failureNote(failure))
                failed = failed ?? failure
            } catch {
                // Cancelled, or an error no layer typed: not told, so given back before it ends the run.
                try? await release()
                throw error
            }
        }
        guard let failed else { return nil }
        try await release()
        return failed
    }
}

/// One way alerts leave the machine (a webhook, a mail, a Telegram chat): a new channel is one
/// deliverer handed to `AlertRun.run`.
package protocol AlertDeliverer: Sendable {
    /// Delivers the run's findings; a `MetrikaFailure` is a failed delivery (the news is told again
    /// on the next run), anything else ends the run.
    func deliver(_ findings: AlertRun.Findings) async throws
    /// The note when `deliver` failed with `failure`.
    func failureNote(_ failure: any MetrikaFailure) -> String
}

extension AlertDeliverer {
    package func failureNote(_ failure: any MetrikaFailure) -> String { "Error: \(failure.message)" }

    /// `Error: <failure>; the alerts will be told again on the next run`: one sentence, the failure's
    /// own full stop dropped (never `….; the alerts`).
    package func untoldNote(_ failure: any MetrikaFailure, naming: ParameterNaming = .neutral) -> String {
        var message = naming.message(of: failure)
        while message.hasSuffix(".") { message.removeLast() }
        return "Error: \(message); the alerts will be told again on the next run"
    }
}

/// The webhook as a deliverer: one JSON body per run that found something.
package struct WebhookDeliverer: AlertDeliverer {
    package let webhook: Webhook

    package init(_ webhook: Webhook) { self.webhook = webhook }

    package func deliver(_ findings: AlertRun.Findings) async throws {
        try await webhook.send(findings.webhookBody(forSlack: webhook.isSlack))
    }
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
