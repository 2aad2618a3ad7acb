import Foundation
import MetrikaAPI
import MetrikaModel

/// The drivers of an hourly run's drops and rises (`alert --today`): each finding's judged hours of
/// today against the same hours of the same weekday of the 4 weeks before (what `HourlyHistory`
/// judges), decomposed as the daily drivers are (`AlertDrivers`: the baseline's segments their mean
/// over the 4 days scaled to the expected total, the shown numbers that add up). One Reporting
/// request per counter and dimension, whatever the metrics alerted: `ym:s:date,ym:s:hour,<dimension>`
/// over the 4 baseline days and today, `filters` keeping only those 5 days and the judged hours.
/// Today is never settled, so nothing is kept: offline, no driver. The daily drivers' budget rules
/// hold: a driver that cannot be fetched never fails the alert, the quota or an unreachable API
/// stops the asking, and one run explains at most `AlertDrivers.mostCounters` counters.
package struct HourlyDrivers: Sendable {
    package let client: MetrikaClient
    package let activity: any Activity
    /// Note each counter whose alerts go without their driver, and why.
    package var verbose: Bool
    package var dimensions: [ExplainDimension] = ExplainDimension.defaults
    /// Same-weekday weeks in the baseline (`HourlyHistory.weeks`).
    package var weeks = 4

    package init(client: MetrikaClient, activity: any Activity, verbose: Bool) {
        self.client = client
        self.activity = activity
        self.verbose = verbose
    }

    /// Whether a finding gets a driver: a drop or a rise (`stopped`, everything at 0, needs none).
    package static func wantsDriver(_ finding: HourlyCheck.Finding) -> Bool {
        guard case .alert(let kind) = finding.notice, kind != .stopped else { return false }
        return Explain.isCount(finding.metric)
    }

    /// `findings` with their drivers, in the same order. Reporting requests made: `requests`.
    package func attach(_ findings: [HourlyCheck.Finding]) async -> (findings: [HourlyCheck.Finding], requests: Int) {
        var result = findings
        // One fetch per counter, day, hours and dimension, whatever the metrics alerted.
        var groups: [(counter: Counter, day: Day, hours: ClosedRange<Int>, indexes: [Int])] = []
        for (index, finding) in findings.enumerated() where Self.wantsDriver(finding) {
            if let at = groups.firstIndex(where: {
                $0.counter.id == finding.counter.id && $0.day == finding.day && $0.hours == finding.judgement.hours
            }) {
                groups[at].indexes.append(index)
            } else {
                groups.append((finding.counter, finding.day, finding.judgement.hours, [index]))
            }
        }
        var requests = 0
        var counters: [Int] = []
        // Why the rest of the run asks nothing more: the API unreachable, its quota spent, enough explained.
        var stopped: String?
        for group in groups {
            if Task.isCancelled { break }
            if !counters.contains(group.counter.id) { counters.append(group.counter.id) }
            if stopped == nil, counters.count > AlertDrivers.mostCounters {
                stopped = "\(AlertDrivers.mostCounters) counters' alerts are explained per run, to keep within the API's quota"
            }
            if let stopped {
                if verbose { activity.note("Note: counter \(group.counter.id): its alerts go without their driver (\(stopped)).") }
                continue
            }
            var metrics: [Metric] = []
            for index in group.indexes where !metrics.contains(where: { $0.apiName == findings[index].metric.apiName }) {
                metrics.append(findings[index].metric)
            }
            let days = (1...max(1, weeks)).reversed().map { group.day.adding(days: -7 * $0) }
            do {
                var explained: [String: [ExplanationPart]] = [:]
                for dimension in dimensions {
                    var start = 0
                    while start < metrics.count {
                        let chunk = Array(metrics[start..<min(metrics.count, start + AlertDrivers.metricsPerRequest)])
                        start += AlertDrivers.metricsPerRequest
                        let answer = try await hourSegments(dimension, counterID: group.counter.id, metrics: chunk.map(\.apiName),
                                                            day: group.day, days: days, hours: group.hours)
                        requests += 1
                        // A page cut off would decompose part of the hours: the dimension is left out.
                        guard let rows = answer else { continue }
                        for (column, metric) in chunk.enumerated() {
                            let sides = Self.hourSides(rows, column: column, day: group.day, days: days, hours: group.hours)
                            explained[metric.apiName, default: []].append(try Explain.decompose(sides, dimension: dimension, metric: metric, shown: 5))
                        }
                    }
                }
                for index in group.indexes {
                    guard case .alert(let kind) = findings[index].notice else { continue }
                    result[index].drivers = AlertDrivers.drivers(explained[findings[index].metric.apiName] ?? [], kind: kind)
                }
            } catch {
                if ConnectionGiveUp.isConnectionFailure(error) { stopped = "the API could not be reached" }
                if AlertDrivers.isQuota(error) { stopped = "the API's quota is spent" }
                if verbose {
                    let why = (error as? any MetrikaFailure).map { activity.naming.message(of: $0) } ?? "\(error)"
                    activity.note("Note: counter \(group.counter.id): its alerts go without their driver (\(why)).")
                }
            }
        }
        return (result, requests)
    }

    /// One row of the hours by segment: its day, local hour, segment and a value per metric asked.
    typealias HourRow = (day: Day, hour: Int, segment: String, values: [Double?])

    /// The judged hours of `day` and of `days` by segment of one dimension: one `/stat/v1/data`
    /// request (`ym:s:date,ym:s:hour,<dimension>`, the 5 days and the hours named in `filters`).
    /// Rows outside them (an API that did not filter) are left out; nil when the answer has more rows
    /// than one page holds (`Explain.rowLimit`).
    func hourSegments(_ dimension: ExplainDimension, counterID: Int, metrics: [String], day: Day, days: [Day],
                      hours: ClosedRange<Int>) async throws -> [HourRow]? {
        let query = StatQuery(ids: [counterID], metrics: metrics, dimensions: ["ym:s:date", "ym:s:hour", dimension.apiName],
                              date1: (days.first ?? day).iso, date2: day.iso, filters: Self.filters(days: days + [day], hours: hours),
                              accuracy: "full")
        let answer = try await client.fetchPlainRows(query, limit: Explain.rowLimit)
        guard answer.rows.count >= answer.totalRows else { return nil }
        let wanted = Set(days + [day])
        return answer.rows.compactMap { row in
            guard row.names.count == 3, let date = row.names[0].flatMap(Day.init(iso:)), wanted.contains(date),
                  let hour = HourlyHistory.hour(named: row.names[1]), hours.contains(hour) else { return nil }
            return (date, hour, Explain.name(row.names, at: 2), row.metrics)
        }
    }

    /// `ym:s:date=.('2026-11-03',…) AND ym:s:hour=.('14:00','15:00','16:00')`.
    static func filters(days: [Day], hours: ClosedRange<Int>) -> String {
        "ym:s:date=.(" + days.map { "'\($0.iso)'" }.joined(separator: ",") + ") AND ym:s:hour=.("
            + hours.map { "'\(HourlyDetector.hourName($0))'" }.joined(separator: ",") + ")"
    }

    /// The judged hours of `day` against the same hours of `days`, from the hours by segment
    /// (`column`: the metric's). As the hourly check expects: each hour's baseline is the median of
    /// that hour over the days (an hour without a row is 0), the expected total their sum; the
    /// segments' baseline is their mean over the days, scaled to that total (the daily drivers' rule).
    static func hourSides(_ rows: [HourRow], column: Int, day: Day, days: [Day], hours: ClosedRange<Int>) -> Explain.Sides {
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
        let expected = hours.reduce(0.0) { sum, hour in sum + AlertDetector.median(days.map { hourTotals[$0]?[hour] ?? 0 }) }
        let mean = order.reduce(0) { $0 + (before[$1] ?? 0) } / Double(max(1, days.count))
        let factor = mean > 0 ? expected / mean : 0
        let segments = order.map { segment in
            (name: segment, a: [(before[segment] ?? 0) / Double(max(1, days.count)) * factor], b: [period[segment] ?? 0])
        }
        let value = order.reduce(0) { $0 + (period[$1] ?? 0) }
        return (segments, (value: value, expected: expected), nil)
    }
}
