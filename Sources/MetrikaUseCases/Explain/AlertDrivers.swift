import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender

/// What made an alert's change: a segment of the dimension that concentrates it (issue 37 item 3),
/// as the explanation's headline names it (`Search engine traffic -336`).
package struct AlertDriver: Sendable, Equatable {
    /// The dimension's name (`trafficSource`).
    package let dimension: String
    /// The segment's name (server text).
    package let name: String
    /// Its value on the day, and what the baseline expected of it (the same weekday of the 4 weeks
    /// before, scaled to their median: docs/explain.md); nil where the segment had none.
    package let value: Double?
    package let expected: Double?
    /// Its shown change, in the metric's display units (they add up with the other segments').
    package let change: Double
    /// Its shown change as text: `-336`, `+910`.
    package let changeText: String
    /// Its whole percent of the total change (`84`); nil when the total shown change is 0.
    package let share: Double?
    package let status: SegmentStatus

    /// The webhook's and the MCP result's object: dimension, name, value, expected, change, share.
    package var json: JSONValue {
        .object([
            ("dimension", .string(dimension)),
            ("name", .string(name)),
            ("value", .number(value.map { ($0 * 100).rounded() / 100 })),
            ("expected", .number(expected.map { ($0 * 100).rounded() / 100 })),
            ("change", .number(change)),
            ("share", .number(share)),
        ])
    }
}

/// The drivers of an alert run's findings: the explanation of each drop or rise against the alert's
/// baseline, its drivers the segments the headline would name. The alerts of one run share their
/// requests: one Reporting request per counter, day and dimension (the days by segment, every metric
/// alerted on that counter's day a column of it), whatever the number of metrics alerted; settled
/// days' segments are kept in the history database and read from it first (offline: only them). A driver
/// that cannot be fetched (quota, network) never fails the alert: its line goes out without it, with
/// a note when `verbose`; once the API cannot be reached, the rest of the run asks nothing more.
package struct AlertDrivers: Sendable {
    /// Its client asks (nil: offline, only what the history keeps); its store keeps settled days.
    package let loader: HistoryLoader
    package let activity: any Activity
    /// Note each counter whose alerts go without their driver, and why.
    package var verbose: Bool
    package var dimensions: [ExplainDimension] = ExplainDimension.defaults
    /// The same weekdays the alert's baseline looks back over (`AlertSettings.weeks`, 6 by default):
    /// the drivers are explained against the alert's own median, so "expected ~2 300 (-33%), mostly
    /// Search engine traffic -956" is a part of that line's drop, not of another baseline's.
    package var weeks = AlertSettings().weeks
    /// Drivers kept per alert: the headline's, then the next largest of its dimension in the same direction.
    package static let mostDrivers = 3
    /// Counters whose alerts one run explains (6 requests each at most): 25 × 6 = 150 Reporting
    /// requests, within the API's 200 per 5 minutes per user beside the check's own. Later counters'
    /// alerts go without a driver (noted under `verbose`).
    package static let mostCounters = 25

    package init(loader: HistoryLoader, activity: any Activity, verbose: Bool) {
        self.loader = loader
        self.activity = activity
        self.verbose = verbose
    }

    /// Whether a finding gets a driver: a drop or a rise of a count (`stopped`, everything at 0, needs none).
    static func wantsDriver(_ finding: AlertCheck.Finding) -> Bool {
        guard case .alert(let kind) = finding.notice, kind != .stopped else { return false }
        return Explain.isCount(finding.metric)
    }

    /// `findings` with their drivers, in the same order. Reporting requests made: `requests`.
    package func attach(_ findings: [AlertCheck.Finding]) async -> (findings: [AlertCheck.Finding], requests: Int) {
        var result = findings
        // The in-run cache: one fetch per counter, day and dimension, whatever the metrics alerted.
        var groups: [(counter: Counter, day: Day, indexes: [Int])] = []
        for (index, finding) in findings.enumerated() where Self.wantsDriver(finding) {
            if let at = groups.firstIndex(where: { $0.counter.id == finding.counter.id && $0.day == finding.judgement.day }) {
                groups[at].indexes.append(index)
            } else {
                groups.append((finding.counter, finding.judgement.day, [index]))
            }
        }
        var requests = 0
        // Why the rest of the run asks nothing more: the API unreachable, its quota spent, enough explained.
        var stopped: String?
        for (number, group) in groups.enumerated() {
            if Task.isCancelled { break }
            if stopped == nil, number == Self.mostCounters {
                stopped = "\(Self.mostCounters) counters' alerts are explained per run, to keep within the API's quota"
            }
            if let stopped {
                if verbose { activity.note("Note: counter \(group.counter.id): its alerts go without their driver (\(stopped)).") }
                continue
            }
            var metrics: [String] = []
            for index in group.indexes where !metrics.contains(findings[index].metric.apiName) {
                metrics.append(findings[index].metric.apiName)
            }
            let days = (1...max(1, weeks)).reversed().map { group.day.adding(days: -7 * $0) }
            let history = SegmentHistory(loader, today: loader.metrikaToday(group.counter))
            do {
                var explained: [String: [ExplanationPart]] = [:]
                for dimension in dimensions {
                    var start = 0
                    while start < metrics.count {
                        let chunk = Array(metrics[start..<min(metrics.count, start + Self.metricsPerRequest)])
                        start += Self.metricsPerRequest
                        let (rows, asked) = try await Explain.daySegments(
                            dimension, counterID: group.counter.id, metrics: chunk, from: days[0], to: group.day, needed: days + [group.day],
                            client: loader.client, history: history)
                        if asked { requests += 1 }
                        for (column, metric) in chunk.enumerated() {
                            guard let known = findings.first(where: { $0.metric.apiName == metric })?.metric else { continue }
                            let sides = Explain.alertSides(rows, columns: [column], day: group.day, days: days)
                            explained[metric, default: []].append(try Explain.decompose(sides, dimension: dimension, metric: known, shown: 5))
                        }
                    }
                }
                for index in group.indexes {
                    guard case .alert(let kind) = findings[index].notice else { continue }
                    result[index].drivers = Self.drivers(explained[findings[index].metric.apiName] ?? [], kind: kind)
                }
            } catch {
                if ConnectionGiveUp.isConnectionFailure(error) { stopped = "the API could not be reached" }
                if Self.isQuota(error) { stopped = "the API's quota is spent" }
                if verbose {
                    let why = (error as? any MetrikaFailure).map { activity.naming.message(of: $0) } ?? "\(error)"
                    activity.note("Note: counter \(group.counter.id): its alerts go without their driver (\(why)).")
                }
            }
        }
        return (result, requests)
    }

    /// Whether `error` is the API's quota (daily, or a 429/420 still refused after the retries).
    static func isQuota(_ error: any Error) -> Bool {
        if case APIError.dailyQuota = error { return true }
        return (error as? TransientFailure)?.quota != nil
    }

    /// Metrics per request: the API takes 20.
    static let metricsPerRequest = 20

    /// The drivers of one metric's explanation: the headline's segment first, then the next largest
    /// named changes of its dimension in the total's direction; none when the change is spread evenly.
    /// A change whose explanation goes the other way than the alert (a baseline day missing from the
    /// segments, a sampled answer) names none.
    static func drivers(_ parts: [ExplanationPart], kind: AlertKind) -> [AlertDriver] {
        let explained = parts.map(\.explained)
        guard let driver = ContributionHeadline.driver(explained) else { return [] }
        let part = parts[driver.dimension]
        let shown = part.explained.shown
        guard kind == .rise ? shown.change > 0 : shown.change < 0 else { return [] }
        let segments = part.explained.decomposition.segments
        let direction = shown.change > 0 ? 1 : -1
        let ranked = [driver.segment] + segments.indices
            .filter { $0 != driver.segment && !segments[$0].isOther && shown.changes[$0] * direction > 0 }
            .sorted { shown.changes[$0] * direction > shown.changes[$1] * direction }
        var scale = 1.0
        for _ in 0..<shown.fractionDigits { scale *= 10 }
        return ranked.prefix(mostDrivers).map { index in
            let segment = segments[index]
            let units = shown.changes[index]
            return AlertDriver(
                dimension: part.dimension.name, name: segment.name, value: segment.value, expected: segment.expected,
                change: Double(units) / scale, changeText: shown.signedText(units),
                share: shown.percentShare(of: units).flatMap(Double.init), status: segment.status)
        }
    }
}
