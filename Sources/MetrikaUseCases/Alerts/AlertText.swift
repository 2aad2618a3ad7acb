import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// The words of the alert check, over a grain (`metrika alert`: a day; `--today`: hours): one stdout
/// line per finding, the webhook's JSON body (an hour's objects with the hours) and the mail's
/// subject. Lines start with the counter id, so scripts can `cut -d' ' -f1`.
package enum AlertText {
    /// The finding's line, then each annotation of its day on a line of its own under it, indented
    /// (`  annotation on Sun 2026-11-29: "…"`): what every channel shows of it.
    package static func lines(_ finding: AlertCheck.Finding) -> [String] {
        [line(finding)] + finding.annotations.map { "  " + AnnotationText.line($0) }
    }

    /// `515151 Сезонный магазин: visits 200 on Sun 2026-11-29, expected ~600 (-67%)`;
    /// `520008 Магазин: visits stopped at 14:00 on Tue 2026-12-01: 0 in 14:00–17:00, expected ~1 600 (-100%)`.
    /// A drop or a rise ends with its main driver (`, mostly Search engine traffic -310`) when it has
    /// one. Server text (names) passes the terminal sanitizer.
    package static func line(_ finding: AlertCheck.Finding) -> String {
        let counter = finding.counter
        let name = TerminalText.sanitize(
            counter.name.trimmingCharacters(in: .whitespaces).isEmpty ? counter.displayName : counter.name, limit: 120)
        let metric = TerminalText.sanitize(metricLabel(finding), limit: 120)
        let judgement = finding.judgement
        let head = "\(counter.id) \(name): \(metric)"
        let day = dayText(judgement.day)
        guard let hours = judgement.hours else {
            let late = finding.provisional ? " (the day has only just ended: its numbers may still grow)" : ""
            switch finding.notice {
            case .alert(let kind):
                var text = "\(head) \(figures(finding))"
                if kind == .stopped { text += ", stopped since \(dayText(judgement.since ?? judgement.day))" }
                return text + driverText(finding.drivers) + late
            case .backToNormal(let episode, _):
                let numbers =
                    "\(value(judgement.value, of: finding.metric)), expected ~\(expected(judgement.expected, of: finding.metric))"
                return "\(head) back to normal on \(day): \(numbers) (had stopped since \(dayText(episode.since)))"
            case .continues(let episode, _):
                return "\(head) \(continuation(finding, of: episode))" + late
            }
        }
        switch finding.notice {
        case .alert(.stopped):
            // The zeros begin the hours known (the day before unknown): they may have begun earlier,
            // which these hours cannot tell (a day's check says since when) — never "stopped at 00:00".
            // Else their first hour, on its day (yesterday's 23:00 when it stopped before midnight).
            let since = dayText(judgement.sinceDay)
            if judgement.sinceOrEarlier, judgement.sinceHour == 0 {
                return
                    "\(head) at 0 all day on \(since) (since midnight or earlier): \(figures(finding, namingDay: false))"
            }
            let first = hourName(judgement.sinceHour ?? hours.lowerBound)
            return "\(head) stopped at \(first) on \(since): \(figures(finding, namingDay: false))"
        case .alert:
            return "\(head) \(figures(finding))\(driverText(finding.drivers))"
        case .backToNormal(let episode, let hour):
            let was = episode.kind == AlertKind.stopped.rawValue ? "stopped" : episode.kind
            let since =
                hourName(episode.sinceHour) + (episode.since == judgement.day ? "" : " on " + dayText(episode.since))
            return "\(head) back to normal at \(hourName(hour ?? hours.upperBound)) on \(day) (had \(was) at \(since))"
        case .continues(let episode, _):
            return "\(head) \(continuation(finding, of: episode))"
        }
    }

    /// The daily check's line that goes on with an hourly alert's story (`episode`, still open):
    /// `still stopped since 14:00 on Mon 2026-11-30: 1 110 of ~2 300 that day (-52%)`; a day after the
    /// one it began: `still stopped since 14:00 on Sun 2026-11-29: 0 of ~2 300 on Mon 2026-11-30 (-100%)`.
    /// A drop goes on as `still down`, a rise as `still up`.
    static func continuation(_ finding: AlertCheck.Finding, of episode: AlertEpisode) -> String {
        let judgement = finding.judgement
        let still =
            switch AlertKind(rawValue: episode.kind) {
            case .rise?: "still up"
            case .drop?: "still down"
            default: "still stopped"
            }
        let when = episode.since == judgement.day ? "that day" : "on " + dayText(judgement.day)
        let figures =
            "\(value(judgement.value, of: finding.metric)) of ~\(expected(judgement.expected, of: finding.metric))"
        return
            "\(still) since \(hourName(episode.sinceHour)) on \(dayText(episode.since)): \(figures) \(when) (\(changeText(judgement)))"
    }

    /// `200 on Sun 2026-11-29, expected ~600 (-67%)`: the value, the expectation and the change; for
    /// hours `0 in 14:00–17:00 on Tue 2026-12-01, expected ~1 600 (-100%)` (the day left out where the
    /// line names it before).
    static func figures(_ finding: AlertCheck.Finding, namingDay: Bool = true) -> String {
        let judgement = finding.judgement
        var when = "on " + dayText(judgement.day)
        if let hours = judgement.hours { when = "in " + hoursText(hours) + (namingDay ? " " + when : "") }
        let expectation = expected(judgement.expected, of: finding.metric)
        return
            "\(value(judgement.value, of: finding.metric)) \(when), expected ~\(expectation) (\(changeText(judgement)))"
    }

    /// What an alert's chart shows, for its alt text: `visits of Сезонный магазин, last five weeks: 200 on
    /// Sun 2026-11-29, expected ~600 (-67%)` (server names sanitized).
    package static func chartDescription(_ finding: AlertCheck.Finding) -> String {
        let name = TerminalText.sanitize(finding.counter.displayName, limit: 120)
        return
            "\(TerminalText.sanitize(metricLabel(finding), limit: 120)) of \(name), last five weeks: \(figures(finding))"
    }

    /// `visits`, `goal "Оформление заказа"` (goals by name; `goal 4001` when it has none).
    package static func metricLabel(_ finding: AlertCheck.Finding) -> String {
        if let id = finding.metric.goalID {
            let name = (finding.goalName ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return name.isEmpty ? "goal \(id)" : "goal \"\(name)\""
        }
        return finding.metric.shortName
    }

    /// `Sun 2026-11-29`.
    package static func dayText(_ day: Day) -> String { AlertCheck.weekdayName(day) + " " + day.iso }

    /// `14:00` for 14 (`23:00` for -1, the day before's).
    package static func hourName(_ hour: Int) -> String {
        let hour = (hour % 24 + 24) % 24
        return hour < 10 ? "0\(hour):00" : "\(hour):00"
    }

    /// `14:00–17:00`: from the start of the first hour to the end of the last (`23:00–02:00` across midnight).
    package static func hoursText(_ hours: ClosedRange<Int>) -> String {
        hourName(hours.lowerBound) + "–" + (hours.upperBound == 23 ? "24:00" : hourName(hours.upperBound + 1))
    }

    /// A count as the table writes it, whole and grouped (`3 085`); below 100 a fraction keeps one
    /// decimal (a median of an even count: `2.5`). The one number text (`ValueFormatter`), so a line
    /// reads as the report's table and the mail do.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return ValueFormatter.missingInTable }
        let whole = DecimalText.format(value, fractionDigits: 0)
        if abs(value) >= 100 || Double(whole) == value {
            return ValueFormatter.format(Quantity(value, unit: .count), grouping: true, missing: whole)
        }
        return DecimalText.format(value, fractionDigits: 1)
    }

    /// A day's value in the metric's unit: a count as `number` does, money as the table writes it, to
    /// the kopeck, grouped, with its currency's sign (`18 250.40 ₽`).
    package static func value(_ value: Double, of metric: Metric) -> String {
        guard metric.unit == .money else { return number(value) }
        return ValueFormatter.format(
            Quantity(value, unit: .money, currency: metric.currency), grouping: true,
            missing: ValueFormatter.missingInTable, currencySign: true)
    }

    /// The expected value in the metric's unit, as people say it (`580`, `61 000 ₽`).
    package static func expected(_ value: Double, of metric: Metric) -> String {
        guard metric.unit == .money, let currency = metric.currency else { return approximate(value) }
        return approximate(value) + " " + currency.sign
    }

    /// The expected value as people say it: two significant digits from 100 up (583 → 580, 240 123 →
    /// `240 000`), whole numbers below, one decimal below 10 when it has one (a median of an even
    /// count: 2.5). Rounded by the one rule and grouped by the one grouper, as the table's numbers are.
    package static func approximate(_ value: Double) -> String {
        guard value.isFinite else { return ValueFormatter.missingInTable }
        guard value >= 100 else { return value >= 10 ? DecimalText.format(value, fractionDigits: 0) : number(value) }
        // The two leading digits, rounded, then zeros for the rest: 583 → `58` → `580`.
        let zeros = Int(log10(value).rounded(.down)) - 1
        var power = 1.0
        for _ in 0..<zeros { power *= 10 }
        let leading = DecimalText.format(value / power, fractionDigits: 0)
        return DigitGroups.group(leading + String(repeating: "0", count: zeros))
    }

    /// `-67%`, `+133%`; `new` when nothing was expected.
    package static func changeText(_ judgement: AlertJudgement) -> String {
        guard let change = judgement.changePercent, change.isFinite else { return "new" }
        let rounded = DecimalText.format(change, fractionDigits: 0)
        return (change > 0 && rounded != "0" ? "+" : "") + rounded + "%"
    }

    // MARK: - Webhook

    /// The webhook body: `version`, `text` (the lines, for Slack-style incoming webhooks and chat
    /// bridges), `alerts` (one object per anomaly) and `back_to_normal` (metrics that had stopped and
    /// came back); an hour's objects carry `hour` (the first judged hour; for back to normal, the hour
    /// it came back) and `hours`. `forSlack`: `text` escapes `&`, `<` and `>` as Slack asks (a counter
    /// named `<!channel>` would otherwise ping a whole channel); other receivers (Telegram, chat
    /// bridges) show text as is.
    package static func webhookBody(_ findings: [AlertCheck.Finding], forSlack: Bool = false) -> Data {
        var alerts: [JSONValue] = []
        var recovered: [JSONValue] = []
        for finding in findings {
            let judgement = finding.judgement
            switch finding.notice {
            case .alert(let kind):
                let since = judgement.sinceHour.map { hourName($0) } ?? (judgement.since ?? judgement.day).iso
                alerts.append(object(finding, kind: kind, since: since, hour: judgement.sinceHour))
            case .backToNormal(let episode, let hour):
                let since = judgement.hours == nil ? episode.since.iso : hourName(episode.sinceHour)
                recovered.append(
                    object(finding, kind: AlertKind(rawValue: episode.kind) ?? .stopped, since: since, hour: hour))
            case .continues(let episode, _):
                // The hourly alert's story goes on: in `alerts`, naming the alert it continues.
                var json = AlertJSON(
                    finding, kind: judgement.kind ?? AlertKind(rawValue: episode.kind) ?? .stopped,
                    since: episode.since.iso)
                json.continues = (episode.id, hourName(episode.sinceHour))
                alerts.append(json.json)
            }
        }
        return webhookBody(text: summary(findings), alerts: alerts, recovered: recovered, forSlack: forSlack)
    }

    /// The body of every alert webhook: `version`, `text` (escaped for Slack when `forSlack`), `alerts`
    /// and `back_to_normal`.
    package static func webhookBody(text: String, alerts: [JSONValue], recovered: [JSONValue], forSlack: Bool) -> Data {
        let body = JSONValue.object([
            ("version", .number(1)),
            ("text", .string(forSlack ? slackEscaped(text) : text)),
            ("alerts", .array(alerts)),
            ("back_to_normal", .array(recovered))
        ])
        return Data(body.serialized().utf8)
    }

    /// Slack's three control characters as the entities Slack decodes (and only those).
    package static func slackEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The human summary: a title line, then the lines — cut at whole lines to `limit` characters
    /// with a last line saying how many more are in `alerts` (a chat message has a size limit:
    /// Telegram's is 4,096 characters, and a refused POST would be refused again every run).
    package static func summary(_ findings: [AlertCheck.Finding], limit: Int = summaryLimit) -> String {
        summary(subject: subject(findings), lines: findings.flatMap(lines), limit: limit)
    }

    /// `subject`, then `lines`, cut at whole lines to `limit` characters.
    package static func summary(subject: String, lines: [String], limit: Int = summaryLimit) -> String {
        var text = subject
        for (index, line) in lines.enumerated() {
            let next = "\n" + line
            // Room is kept for the closing "… and N more" line unless this is the last line.
            let room = index == lines.count - 1 ? limit : limit - 40
            if text.count + next.count > room {
                return text + "\n… and \(lines.count - index) more (in the alerts list)"
            }
            text += next
        }
        return text
    }

    /// The longest `text` of a webhook body, in characters.
    package static let summaryLimit = 3_500

    /// `metrika: 2 alerts (Сезонный магазин, Ромашка)` / `metrika: back to normal (…)`; the hour grain's
    /// `metrika: 1 alert today (Магазин)`. At most three counters named (`… and 22 more`): a subject
    /// line, not a list.
    package static func subject(_ findings: [AlertCheck.Finding]) -> String {
        let alerts = findings.filter { if case .alert = $0.notice { return true } else { return false } }.count
        let going = findings.filter { if case .continues = $0.notice { return true } else { return false } }.count
        if alerts == 0, going > 0 {
            // Only stories the hourly check told, going on: not new alerts, and not back to normal.
            return subject(
                alerts: 0, counters: findings.map(\.counter),
                what: going == 1 ? "1 alert still open" : "\(going) alerts still open")
        }
        return subject(
            alerts: alerts, counters: findings.map(\.counter), when: findings.first?.grain == .hour ? " today" : "")
    }

    /// The subject of any alert news: `alerts` of them (none: back to normal) about `counters`, with
    /// `when` after the count (" today" for hours).
    package static func subject(alerts: Int, counters: [Counter], when: String = "", what said: String? = nil)
        -> String
    {
        var names: [String] = []
        for counter in counters {
            // A server's name, sanitized as the lines' are: the subject is a mail header and the first
            // line of a chat message, where a line break or a terminal escape must not pass.
            let name = TerminalText.sanitize(counter.displayName, limit: 120)
            if !names.contains(name) { names.append(name) }
        }
        let what = said ?? (alerts == 0 ? "back to normal" : alerts == 1 ? "1 alert" : "\(alerts) alerts") + when
        let shown =
            names.count <= 3
            ? names.joined(separator: ", ") : names.prefix(3).joined(separator: ", ") + " and \(names.count - 3) more"
        return "metrika: \(what) (\(shown))"
    }

    private static func object(_ finding: AlertCheck.Finding, kind: AlertKind, since: String, hour: Int?) -> JSONValue {
        let judgement = finding.judgement
        var json = AlertJSON(finding, kind: kind, since: since)
        if let hours = judgement.hours {
            json.hours = (hourName(hour ?? hours.lowerBound), hoursText(hours))
        } else {
            json.provisional = finding.provisional
        }
        return json.json
    }
}
