import Foundation
import MetrikaModel
import MetrikaRender

/// The words of `metrika alert --today`: one stdout line per finding, the webhook's JSON body (the
/// daily check's shape, plus the hour) and the mail. Numbers as the daily lines write them
/// (`AlertText`: the one number text); lines start with the counter id.
package enum HourlyText {
    /// `520008 Магазин: visits stopped at 14:00 on Tue 2026-12-01: 0 in 14:00–17:00, expected ~1 600 (-100%)`;
    /// a drop or a rise ends with its main driver (`, mostly Search engine traffic -310`) when it has one.
    package static func line(_ finding: HourlyCheck.Finding) -> String {
        let counter = finding.counter
        let name = TerminalText.sanitize(counter.name.trimmingCharacters(in: .whitespaces).isEmpty ? counter.displayName : counter.name, limit: 120)
        let metric = TerminalText.sanitize(metricLabel(finding), limit: 120)
        let day = AlertText.dayText(finding.day)
        switch finding.notice {
        case .alert(.stopped):
            // Zero since the day began: it may have stopped before midnight, which today's hours cannot
            // tell (the daily check says since when) — never "stopped at 00:00" (newcomer).
            if finding.judgement.since == 0 {
                return "\(counter.id) \(name): \(metric) at 0 all day on \(day) (since midnight or earlier): \(figures(finding))"
            }
            return "\(counter.id) \(name): \(metric) stopped at \(HourlyDetector.hourName(finding.judgement.since)) on \(day): \(figures(finding))"
        case .alert:
            return "\(counter.id) \(name): \(metric) \(AlertText.number(finding.judgement.value)) in \(hoursText(finding.judgement.hours)) on \(day), expected ~\(AlertText.approximate(finding.judgement.expected)) (\(changeText(finding.judgement)))\(AlertText.driverText(finding.drivers))"
        case .backToNormal(let episode, let hour):
            return "\(counter.id) \(name): \(metric) back to normal at \(HourlyDetector.hourName(hour)) on \(day) (had \(episode.kind == AlertKind.stopped.rawValue ? "stopped" : episode.kind) at \(HourlyDetector.hourName(episode.sinceHour))\(episode.since == finding.day ? "" : " on " + AlertText.dayText(episode.since)))"
        }
    }

    /// `0 in 14:00–17:00, expected ~1 600 (-100%)`.
    static func figures(_ finding: HourlyCheck.Finding) -> String {
        "\(AlertText.number(finding.judgement.value)) in \(hoursText(finding.judgement.hours)), expected ~\(AlertText.approximate(finding.judgement.expected)) (\(changeText(finding.judgement)))"
    }

    /// `14:00–17:00`: from the start of the first hour to the end of the last.
    package static func hoursText(_ hours: ClosedRange<Int>) -> String {
        HourlyDetector.hourName(hours.lowerBound) + "–" + (hours.upperBound == 23 ? "24:00" : HourlyDetector.hourName(hours.upperBound + 1))
    }

    /// `-67%`, `+133%`.
    static func changeText(_ judgement: HourlyJudgement) -> String {
        guard let change = judgement.changePercent, change.isFinite else { return "new" }
        let rounded = DecimalText.format(change, fractionDigits: 0)
        return (change > 0 && rounded != "0" ? "+" : "") + rounded + "%"
    }

    /// `visits`, `goal "Заказ"`.
    package static func metricLabel(_ finding: HourlyCheck.Finding) -> String {
        if let id = finding.metric.goalID {
            let name = (finding.goalName ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return name.isEmpty ? "goal \(id)" : "goal \"\(name)\""
        }
        return finding.metric.shortName
    }

    /// `metrika: 1 alert today (Магазин)` / `metrika: back to normal today (…)`.
    package static func subject(_ findings: [HourlyCheck.Finding]) -> String {
        let alerts = findings.filter { if case .alert = $0.notice { return true } else { return false } }.count
        return AlertText.subject(alerts: alerts, counters: findings.map(\.counter), when: " today")
    }

    /// The human summary: the subject, then the lines, cut at whole lines to `limit` characters.
    package static func summary(_ findings: [HourlyCheck.Finding], limit: Int = AlertText.summaryLimit) -> String {
        AlertText.summary(subject: subject(findings), lines: findings.map(line), limit: limit)
    }

    /// The webhook body: the daily check's (`version`, `text`, `alerts`, `back_to_normal`), each object
    /// with `hour` (the first judged hour; for back to normal, the hour it came back) and `hours`.
    package static func webhookBody(_ findings: [HourlyCheck.Finding], forSlack: Bool = false) -> Data {
        var alerts: [JSONValue] = []
        var recovered: [JSONValue] = []
        for finding in findings {
            switch finding.notice {
            case .alert(let kind):
                alerts.append(object(finding, kind: kind, hour: finding.judgement.hours.lowerBound, since: finding.judgement.hours.lowerBound))
            case .backToNormal(let episode, let hour):
                recovered.append(object(finding, kind: AlertKind(rawValue: episode.kind) ?? .stopped, hour: hour, since: episode.sinceHour))
            }
        }
        return AlertText.webhookBody(text: summary(findings), alerts: alerts, recovered: recovered, forSlack: forSlack)
    }

    private static func object(_ finding: HourlyCheck.Finding, kind: AlertKind, hour: Int, since: Int) -> JSONValue {
        let judgement = finding.judgement
        return AlertJSON(counter: finding.counter, metric: finding.metric, goalName: finding.goalName, grain: .hour, date: finding.day,
                         hours: (HourlyDetector.hourName(hour), hoursText(judgement.hours)), value: judgement.value, expected: judgement.expected,
                         change: judgement.changePercent, kind: kind, since: HourlyDetector.hourName(since), score: judgement.score,
                         drivers: finding.drivers, text: line(finding)).json
    }

    /// The mail: the lines as text and as HTML (no charts: an hour's news is the line).
    package static func mail(_ findings: [HourlyCheck.Finding], sender: MIMEAddress, recipients: [MIMEAddress], now: Date) -> MIMEMessage {
        let seed = UInt64.random(in: 1...UInt64.max)
        var text = subject(findings) + "\n\n"
        for finding in findings { text += line(finding) + "\n" }
        text += "\nEach line: the counter, the metric, today's finished hours and the median of the same hours of the same weekday over the previous weeks.\n"
        text += "-- \nSent by metrika \(MetrikaVersion.current) (the hourly alert check).\n"
        var html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(XMLEscape.text(subject(findings)))</title></head>\n"
        html += "<body style=\"font-family: sans-serif; color: #222; margin: 0; padding: 12px;\">\n"
        for finding in findings {
            let color: String
            switch finding.notice {
            case .alert(.rise): color = "#B25E00"
            case .alert: color = "#B00020"
            case .backToNormal: color = "#1B7F3B"
            }
            html += "<p style=\"margin: 12px 0; color: \(color); font-weight: bold;\">\(HTMLText.prose(line(finding)))</p>\n"
        }
        html += "<p style=\"color: #777; font-size: 12px;\">Expected: the median of the same hours of the same weekday over the previous weeks. Sent by metrika \(XMLEscape.text(MetrikaVersion.current)).</p>\n</body></html>\n"
        let offset = findings.first.flatMap { TimeZone(identifier: $0.counter.timeZoneName)?.secondsFromGMT(for: now) } ?? 0
        return MIMEMessage(from: sender, to: recipients, subject: subject(findings), date: now, utcOffsetSeconds: offset, seed: seed,
                           body: MIMEPart.report(text: text, html: html, inline: [], attachments: []))
    }
}
