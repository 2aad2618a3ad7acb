import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// The words of `alert --today`: the lines, and the webhook body with the daily fields plus the hour.
@Suite struct HourlyTextTests {
    let counter = Counter(
        id: 520008, name: "Магазин «До обеда»", site: "noon.example.ru", timeZoneName: "Europe/Moscow")
    let today = Day(iso: "2026-12-01")!

    func finding(
        _ notice: AlertLedger.Notice, _ judgement: AlertJudgement, metric: Metric = .visits, goalName: String? = nil
    ) -> AlertCheck.Finding {
        AlertCheck.Finding(counter: counter, metric: metric, goalName: goalName, judgement: judgement, notice: notice)
    }

    @Test func linesSayTheHours() throws {
        let stop = finding(
            .alert(.stopped),
            AlertJudgement(day: today, hours: 14...16, value: 0, expected: 1_583, score: -79.6, kind: .stopped))
        #expect(
            AlertText.line(stop)
                == "520008 Магазин «До обеда»: visits stopped at 14:00 on Tue 2026-12-01: 0 in 14:00–17:00, expected ~1 600 (-100%)"
        )
        // Zero from the day's first hour: it may have stopped days ago — not "stopped at 00:00" (newcomer).
        let allDay = finding(
            .alert(.stopped),
            AlertJudgement(day: today, hours: 0...16, value: 0, expected: 16, score: -9, kind: .stopped))
        #expect(
            AlertText.line(allDay)
                == "520008 Магазин «До обеда»: visits at 0 all day on Tue 2026-12-01 (since midnight or earlier): 0 in 00:00–17:00, expected ~16 (-100%)"
        )
        let drop = finding(
            .alert(.drop), AlertJudgement(day: today, hours: 21...23, value: 40, expected: 210, score: -9, kind: .drop),
            metric: Metric.named("goal6801reaches")!, goalName: "Заказ")
        #expect(
            AlertText.line(drop)
                == "520008 Магазин «До обеда»: goal \"Заказ\" 40 in 21:00–24:00 on Tue 2026-12-01, expected ~210 (-81%)"
        )
        let episode = AlertEpisode(
            counterID: 520008, metric: "ym:s:visits", kind: "stopped", day: today, sinceHour: 14, lastDay: today,
            lastHour: 16,
            value: 0, expected: 1_583, notifiedAt: Date(timeIntervalSince1970: 1_796_135_400))
        let back = finding(
            .backToNormal(episode, hour: 17),
            AlertJudgement(day: today, hours: 17...19, value: 600, expected: 620, score: -0.3, kind: nil))
        #expect(
            AlertText.line(back)
                == "520008 Магазин «До обеда»: visits back to normal at 17:00 on Tue 2026-12-01 (had stopped at 14:00)")
    }

    @Test func theWebhookBodyHasTheDailyFieldsAndTheHour() throws {
        let stop = finding(
            .alert(.stopped),
            AlertJudgement(day: today, hours: 14...16, value: 0, expected: 1_583, score: -79.6, kind: .stopped))
        let body = try #require(try JSONSerialization.jsonObject(with: AlertText.webhookBody([stop])) as? [String: Any])
        #expect(body["version"] as? Int == 1)
        #expect((body["text"] as? String)?.hasPrefix("metrika: 1 alert today (Магазин «До обеда»)\n520008 ") == true)
        let alert = try #require((body["alerts"] as? [[String: Any]])?.first)
        #expect(
            alert["counter_id"] as? Int == 520008 && alert["metric"] as? String == "visits"
                && alert["date"] as? String == "2026-12-01")
        #expect(
            alert["kind"] as? String == "stopped" && alert["value"] as? Double == 0
                && alert["expected"] as? Double == 1_583)
        #expect(alert["hour"] as? String == "14:00" && alert["hours"] as? String == "14:00–17:00")
        #expect((body["back_to_normal"] as? [Any])?.isEmpty == true)
    }
}
