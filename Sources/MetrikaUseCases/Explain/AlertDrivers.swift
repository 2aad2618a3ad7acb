import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender

/// What made an alert's change: a segment of the dimension that concentrates it,
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
            ("share", .number(share))
        ])
    }
}

/// The drivers of an alert run's findings, over a grain: the explanation of each drop or rise against
/// the alert's baseline, its drivers the segments the headline would name. The alerts of one run
/// share their requests: one Reporting request per counter, day and dimension (the days by segment,
/// every metric alerted on that counter's day a column of it), whatever the number of metrics
/// alerted.
/// - A day: settled days' segments are kept in the history database and read from it first
///   (offline: only them).
/// - Hours: the judged hours of today against the same hours of the same weekday of the 4 weeks
///   before (what `HourlyHistory` judges), `ym:s:date,ym:s:hour,<dimension>` over those 5 days with
///   `filters` keeping only them and the judged hours; the baseline's segments are their mean over the
///   days scaled to the expected total, as a day's are. Today is never settled, so nothing is kept:
///   offline, no driver.
///
/// A driver that cannot be fetched (quota, network) never fails the alert: its line goes out without
/// it, with a note when `verbose`; once the API cannot be reached or its quota is spent, the rest of
/// the run asks nothing more, and one run explains at most `mostCounters` counters.
package struct AlertDrivers: Sendable {
    /// Its client asks (nil: offline, only what the history keeps); its store keeps settled days.
    package let loader: HistoryLoader
    package let activity: any Activity
    /// Note each counter whose alerts go without their driver, and why.
    package var verbose: Bool
    package var dimensions: [ExplainDimension] = ExplainDimension.defaults
    /// The same weekdays a day's baseline looks back over (`AlertSettings.weeks`, 6 by default):
    /// the drivers are explained against the alert's own median, so "expected ~2 300 (-33%), mostly
    /// Search engine traffic -956" is a part of that line's drop, not of another baseline's.
    package var weeks = AlertSettings().weeks
    /// The same weekdays an hour's baseline looks back over (`HourlyHistory.weeks`).
    package var hourWeeks = 4
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

    /// Whether a finding gets a driver: a drop or a rise of a count (`stopped`, everything at 0, needs
    /// none), of a day or of hours the API can be asked for.
    func wantsDriver(_ finding: AlertCheck.Finding) -> Bool {
        Self.wantsDriver(finding) && (finding.grain == .day || loader.client != nil)
    }

    /// Whether a finding's kind gets a driver: a drop or a rise of a count.
    package static func wantsDriver(_ finding: AlertCheck.Finding) -> Bool {
        guard case .alert(let kind) = finding.notice, kind != .stopped else { return false }
        return Explain.isCount(finding.metric)
    }

    /// `findings` with their drivers, in the same order. Reporting requests made: `requests`.
    package func attach(_ findings: [AlertCheck.Finding]) async -> (findings: [AlertCheck.Finding], requests: Int) {
        var result = findings
        // The in-run cache: one fetch per counter, day, hours and dimension, whatever the metrics alerted.
        var groups: [(counter: Counter, day: Day, hours: ClosedRange<Int>?, indexes: [Int])] = []
        for (index, finding) in findings.enumerated() where wantsDriver(finding) {
            let judgement = finding.judgement
            if let at = groups.firstIndex(where: {
                $0.counter.id == finding.counter.id && $0.day == judgement.day && $0.hours == judgement.hours
            }) {
                groups[at].indexes.append(index)
            } else {
                groups.append((finding.counter, judgement.day, judgement.hours, [index]))
            }
        }
        var requests = 0
        var counters: [Int] = []
        // Why the rest of the run asks nothing more: the API unreachable, its quota spent, enough explained.
        var stopped: String?
        for group in groups {
            if Task.isCancelled { break }
            if !counters.contains(group.counter.id) { counters.append(group.counter.id) }
            if stopped == nil, counters.count > Self.mostCounters {
                stopped = "\(Self.mostCounters) counters' alerts are explained per run, to keep within the API's quota"
            }
            if let stopped {
                if verbose {
                    activity.note("Note: counter \(group.counter.id): its alerts go without their driver (\(stopped)).")
                }
                continue
            }
            var metrics: [Metric] = []
            for index in group.indexes where !metrics.contains(where: { $0.apiName == findings[index].metric.apiName })
            {
                metrics.append(findings[index].metric)
            }
            let baselineWeeks = group.hours == nil ? weeks : hourWeeks
            let days = (1...max(1, baselineWeeks)).reversed().map { group.day.adding(days: -7 * $0) }
            do {
                var explained: [String: [ExplanationPart]] = [:]
                for dimension in dimensions {
                    var start = 0
                    while start < metrics.count {
                        let chunk = Array(metrics[start..<min(metrics.count, start + Self.metricsPerRequest)])
                        start += Self.metricsPerRequest
                        let (sides, asked) = try await segmentSides(
                            dimension, counter: group.counter, metrics: chunk, day: group.day,
                            days: days, hours: group.hours)
                        if asked { requests += 1 }
                        for (column, metric) in chunk.enumerated() where column < sides.count {
                            let part = try Explain.decompose(
                                sides[column], dimension: dimension, metric: metric, shown: 5)
                            explained[metric.apiName, default: []].append(part)
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

    /// Each of `metrics`' judged day (or hours) against its baseline `days` by segment of one
    /// dimension, and whether the API was asked. A day's segments come from the history when it keeps
    /// them; hours always ask, and a page cut off leaves the dimension out (no sides: it would
    /// decompose part of the hours).
    func segmentSides(
        _ dimension: ExplainDimension, counter: Counter, metrics: [Metric], day: Day, days: [Day],
        hours: ClosedRange<Int>?
    ) async throws -> (sides: [Explain.Sides], asked: Bool) {
        guard let hours else {
            let history = SegmentHistory(loader, today: loader.metrikaToday(counter))
            let (rows, asked) = try await Explain.daySegments(
                dimension, counterID: counter.id, metrics: metrics.map(\.apiName), from: days[0], to: day,
                needed: days + [day],
                client: loader.client, history: history)
            return (metrics.indices.map { Explain.alertSides(rows, columns: [$0], day: day, days: days) }, asked)
        }
        guard let client = loader.client else { return ([], false) }
        let rows = try await hourSegments(
            dimension, client: client, counterID: counter.id, metrics: metrics.map(\.apiName),
            day: day, days: days, hours: hours)
        guard let rows else { return ([], true) }
        return (metrics.indices.map { Self.hourSides(rows, column: $0, day: day, days: days, hours: hours) }, true)
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
        let ranked =
            [driver.segment]
            + segments.indices
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

    /// One row of the hours by segment: its day, local hour, segment and a value per metric asked.
    typealias HourRow = (day: Day, hour: Int, segment: String, values: [Double?])

    /// The judged hours of `day` and of `days` by segment of one dimension: one `/stat/v1/data`
    /// request (`ym:s:date,ym:s:hour,<dimension>`, the 5 days and the hours named in `filters`).
    /// Rows outside them (an API that did not filter) are left out; nil when the answer has more rows
    /// than one page holds (`Explain.rowLimit`).
    func hourSegments(
        _ dimension: ExplainDimension, client: MetrikaClient, counterID: Int, metrics: [String], day: Day, days: [Day],
        hours: ClosedRange<Int>
    ) async throws -> [HourRow]? {
        let query = StatQuery(
            ids: [counterID], metrics: metrics, dimensions: ["ym:s:date", "ym:s:hour", dimension.apiName],
            date1: (days.first ?? day).iso, date2: day.iso, filters: Self.filters(days: days + [day], hours: hours),
            accuracy: "full")
        let answer = try await client.fetchPlainRows(query, limit: Explain.rowLimit)
        guard answer.rows.count >= answer.totalRows else { return nil }
        let wanted = Set(days + [day])
        return answer.rows.compactMap { row in
            guard row.names.count == 3, let date = row.names[0].flatMap(Day.init(iso:)), wanted.contains(date),
                let hour = HourlyHistory.hour(named: row.names[1]), hours.contains(hour)
            else { return nil }
            return (date, hour, Explain.name(row.names, at: 2), row.metrics)
        }
    }

    /// `ym:s:date=.('2026-11-03',…) AND ym:s:hour=.('14:00','15:00','16:00')`.
    static func filters(days: [Day], hours: ClosedRange<Int>) -> String {
        "ym:s:date=.(" + days.map { "'\($0.iso)'" }.joined(separator: ",") + ") AND ym:s:hour=.("
            + hours.map { "'\(AlertText.hourName($0))'" }.joined(separator: ",") + ")"
    }

    /// The judged hours of `day` against the same hours of `days`, from the hours by segment
    /// (`column`: the metric's). As the check of hours expects: each hour's baseline is the median of
    /// that hour over the days (an hour without a row is 0), the expected total their sum; the
    /// segments' baseline is their mean over the days, scaled to that total (a day's rule).
    static func hourSides(_ rows: [HourRow], column: Int, day: Day, days: [Day], hours: ClosedRange<Int>)
        -> Explain.Sides
    {
        let baseline = Set(days)
        var order: [String] = []
        var period: [String: Double] = [:]
        var before: [String: Double] = [:]
        var hourTotals: [Day: [Int: Double]] = [:]
        for row in rows where hours.contains(row.hour) && (row.day == day || baseline.contains(row.day)) {
            let value = column < row.values.count ? row.values[column] ?? 0 : 0
            if period[row.segment] == nil, before[row.segment] == nil { order.append(row.segment) }
            if row.day == day {
                period[row.segment, default: 0] += value
            } else {
                before[row.segment, default: 0] += value
                hourTotals[row.day, default: [:]][row.hour, default: 0] += value
            }
        }
        let expected = hours.reduce(0.0) { sum, hour in
            sum + AlertDetector.median(days.map { hourTotals[$0]?[hour] ?? 0 })
        }
        let mean = order.reduce(0) { $0 + (before[$1] ?? 0) } / Double(max(1, days.count))
        let factor = mean > 0 ? expected / mean : 0
        let segments = order.map { segment in
            (
                name: segment, a: [(before[segment] ?? 0) / Double(max(1, days.count)) * factor],
                b: [period[segment] ?? 0]
            )
        }
        let value = order.reduce(0) { $0 + (period[$1] ?? 0) }
        return (segments, (value: value, expected: expected), nil)
    }
}
