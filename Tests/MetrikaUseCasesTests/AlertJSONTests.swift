import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaStore
@testable import MetrikaUseCases

/// Issue 36 item 5: one JSON object of an alert for both grains (`AlertJSON`): the daily and the
/// hourly webhook items have the same members in the same order, `grain` saying which, the hours
/// only for the hour grain and `currency`/`provisional` only for the day.
@Suite struct AlertJSONTests {
    let counter = Counter(id: 520008, name: "Магазин", site: "shop.example.ru", timeZoneName: "Europe/Moscow")

    /// The member names of each object of `list` in a webhook body, in their order.
    func memberNames(_ body: Data, _ list: String) throws -> [[String]] {
        let text = String(decoding: body, as: UTF8.self)
        let objects =
            try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])[list] as? [[String: Any]] ?? []
        // JSONSerialization forgets the order: read it from the text, object by object.
        var names: [[String]] = []
        var rest = text[text.range(of: "\"\(list)\":")!.upperBound...]
        for object in objects {
            var found: [(String.Index, String)] = []
            let end = rest.range(of: "\"text\":")!.upperBound
            for key in object.keys {
                if let at = rest[..<end].range(of: "\"\(key)\":")?.lowerBound { found.append((at, key)) }
            }
            names.append(found.sorted { $0.0 < $1.0 }.map(\.1))
            rest = rest[end...]
        }
        return names
    }

    @Test func bothGrainsShareTheMembersAndSayTheirGrain() throws {
        let day = Day(iso: "2026-11-29")!
        let judgement = AlertJudgement(
            day: day, value: 0, expected: 23, baselineDays: 4, score: -9.6, kind: .stopped, since: day)
        let daily = AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil, judgement: judgement, notice: .alert(.stopped),
            recent: [], provisional: false)
        #expect(
            try memberNames(AlertText.webhookBody([daily]), "alerts") == [
                [
                    "counter_id", "counter_name", "metric", "goal_id", "goal_name", "grain", "date", "value",
                    "expected", "unit", "currency",
                    "change", "kind", "since", "score", "provisional", "drivers", "annotations", "text"
                ]
            ])
        let dailyObject = try #require(
            (try JSONSerialization.jsonObject(with: AlertText.webhookBody([daily])) as? [String: Any])?["alerts"]
                as? [[String: Any]])
        #expect(dailyObject.first?["grain"] as? String == "day")

        // An hourly stop that began before midnight, back the next morning.
        let today = Day(iso: "2026-12-02")!
        let episode = AlertEpisode(
            counterID: counter.id, metric: "ym:s:visits", kind: "stopped", day: Day(iso: "2026-12-01")!, sinceHour: 14,
            lastDay: today, lastHour: 9, value: 0, expected: 1_583,
            notifiedAt: Date(timeIntervalSince1970: 1_796_135_400))
        let back = AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil,
            judgement: AlertJudgement(day: today, hours: 8...10, value: 600, expected: 620, score: -0.3, kind: nil),
            notice: .backToNormal(episode, hour: 10))
        let body = AlertText.webhookBody([back])
        #expect(
            try memberNames(body, "back_to_normal") == [
                [
                    "counter_id", "counter_name", "metric", "goal_id", "goal_name", "grain", "date", "hour", "hours",
                    "value", "expected", "unit",
                    "change", "kind", "since", "score", "drivers", "annotations", "text"
                ]
            ])
        let hourly = try #require(
            ((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["back_to_normal"] as? [[String: Any]])?
                .first)
        #expect(
            hourly["grain"] as? String == "hour" && hourly["hour"] as? String == "10:00"
                && hourly["since"] as? String == "14:00")
        #expect((hourly["text"] as? String)?.hasSuffix("(had stopped at 14:00 on Tue 2026-12-01)") == true)
    }

    /// Issue 48 target 6: an alert's day annotated by the owner: the webhook's item has the annotations
    /// (date, time, title, message, group), its text the indented line under the alert's; Telegram's
    /// message and the chart's caption and the mail have the line too.
    @Test func anAnnotatedDayIsInEveryChannel() throws {
        let day = Day(iso: "2026-11-29")!
        let judgement = AlertJudgement(
            day: day, value: 0, expected: 23, baselineDays: 4, score: -9.6, kind: .stopped, since: day)
        var finding = AlertCheck.Finding(
            counter: counter, metric: .visits, goalName: nil, judgement: judgement, notice: .alert(.stopped),
            recent: [], provisional: false)
        finding.annotations = [
            Annotation(id: 7, day: day, time: "10:00", title: "Новый <шаблон>", message: "Вёрстка", group: "B")
        ]
        let line = "  annotation on Sun 2026-11-29: \"Новый <шаблон>\""
        let body = try #require(
            try JSONSerialization.jsonObject(with: AlertText.webhookBody([finding])) as? [String: Any])
        let item = try #require((body["alerts"] as? [[String: Any]])?.first)
        let notes = try #require(item["annotations"] as? [[String: Any]])
        try #require(notes.count == 1)
        #expect(notes[0]["date"] as? String == "2026-11-29")
        #expect(notes[0]["time"] as? String == "10:00")
        #expect(notes[0]["title"] as? String == "Новый <шаблон>" && notes[0]["message"] as? String == "Вёрстка")
        #expect(notes[0]["group"] as? String == "B")
        #expect((body["text"] as? String)?.hasSuffix(AlertText.line(finding) + "\n" + line) == true, "\(body)")
        let slack = try #require(
            try JSONSerialization.jsonObject(with: AlertText.webhookBody([finding], forSlack: true)) as? [String: Any])
        #expect((slack["text"] as? String)?.contains("Новый &lt;шаблон&gt;") == true)
        let findings = AlertRun.Findings(.day, [finding])
        let escaped = "\n  annotation on Sun 2026-11-29: \"Новый &lt;шаблон&gt;\""
        #expect(TelegramDeliverer.message(findings).hasSuffix(escaped))
        #expect(TelegramDeliverer.caption(finding).hasSuffix(escaped))
        let mail = AlertMail.compose(
            [finding], sender: try MIMEAddress("m@example.com"),
            recipients: [try MIMEAddress("a@example.com")], pngs: [:], now: testNow)
        let text = mail.rendered()
        #expect(text.contains("\r\n  annotation on Sun 2026-11-29: "), "the mail's text part, under the line")
    }
}
