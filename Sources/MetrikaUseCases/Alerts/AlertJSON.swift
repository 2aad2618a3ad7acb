import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// The one JSON object of an alert, of either grain: the webhook's `alerts` and `back_to_normal`
/// items, of a day and of hours alike (`AlertText`). Its members are listed here once, in
/// their order; a new member (a new fact about an alert) is one field and one line below.
package struct AlertJSON: Sendable {
    package var counter: Counter
    package var metric: Metric
    /// The goal's name for goal metrics (server text), else nil.
    package var goalName: String?
    package var grain: AlertEpisode.Grain
    /// The judged day (the hour grain: today in the counter's time zone).
    package var date: Day
    /// The hour grain's `hour` (the first judged hour; back to normal: the hour it came back) and
    /// `hours` (`14:00–17:00`); nil for a day.
    package var hours: (hour: String, span: String)? = nil
    package var value: Double
    package var expected: Double
    /// The change in percent (nil: nothing was expected).
    package var change: Double?
    /// The kind of the anomaly (back to normal: what it was).
    package var kind: AlertKind
    /// Its start: a day (`2026-11-29`), or for the hour grain an hour (`14:00`).
    package var since: String
    package var score: Double
    /// Whether the judged day's numbers may still grow (the day grain only).
    package var provisional: Bool? = nil
    /// What made a drop or a rise, the main one first (`AlertDrivers`); empty for a stop, for back to
    /// normal, for a change spread evenly.
    package var drivers: [AlertDriver] = []
    /// The owner's chart annotations on the alert's day (`AnnotationText`); empty for back to normal.
    package var annotations: [Annotation] = []
    /// The alert's line.
    package var text: String
    /// The daily check's line that continues an hourly alert still open: that alert's id (as `--status`
    /// lists it) and its first hour (`14:00`); nil for any other.
    package var continues: (id: Int?, hour: String)? = nil

    /// The object: `counter_id`, `counter_name`, `metric`, `goal_id`, `goal_name`, `grain`, `date`,
    /// `hour` and `hours` (hours only), `value`, `expected`, `unit`, `currency` (days only), `change`,
    /// `kind`, `since`, `score`, `provisional` (days only), `drivers`, `annotations` (`date`, `time`,
    /// `title`, `message`, `group` each), `text`.
    package var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("counter_id", .number(Double(counter.id))),
            ("counter_name", .string(counter.name)),
            ("metric", .string(metric.shortName)),
            ("goal_id", metric.goalID.map { .number(Double($0)) } ?? .null),
            ("goal_name", metric.goalID == nil ? .null : .string(goalName ?? "")),
            ("grain", .string(grain.rawValue)),
            ("date", .string(date.iso))
        ]
        if let hours { members += [("hour", .string(hours.hour)), ("hours", .string(hours.span))] }
        members += [
            ("value", .number(value)),
            // Money to the kopeck (a median of revenue in orders' worth has more decimals than money has).
            ("expected", .number(metric.unit == .money ? (expected * 100).rounded() / 100 : expected)),
            ("unit", .string(metric.unit.rawValue))
        ]
        if grain == .day {
            members.append(("currency", metric.unit == .money ? .string(metric.currency?.code) : .null))
        }
        members += [
            ("change", .number(change.map { ($0 * 10).rounded() / 10 })),
            ("kind", .string(kind.rawValue)),
            ("since", .string(since)),
            ("score", .number((score * 10).rounded() / 10))
        ]
        if let provisional { members.append(("provisional", .bool(provisional))) }
        members.append(("drivers", .array(drivers.map(\.json))))
        members.append(("annotations", .array(annotations.map(AnnotationText.json))))
        if let continues {
            members.append(
                (
                    "continues",
                    .object([
                        ("alert_id", continues.id.map { .number(Double($0)) } ?? .null),
                        ("since_hour", .string(continues.hour))
                    ])
                ))
        }
        members.append(("text", .string(text)))
        return .object(members)
    }
}

extension AlertJSON {
    /// The object of `finding`, told as `kind` since `since`.
    init(_ finding: AlertCheck.Finding, kind: AlertKind, since: String) {
        let judgement = finding.judgement
        self.init(
            counter: finding.counter, metric: finding.metric, goalName: finding.goalName, grain: judgement.grain,
            date: judgement.day,
            value: judgement.value, expected: judgement.expected, change: judgement.changePercent, kind: kind,
            since: since,
            score: judgement.score, drivers: finding.drivers, annotations: finding.annotations,
            text: AlertText.line(finding))
        if judgement.hours == nil { provisional = finding.provisional }
    }
}
