import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender

/// `alert --status`'s list (issue 40): at 80 columns dates, kinds and names read whole (the table
/// splits into blocks, each repeating the id, as report tables do); at 40 no line is wider than the
/// terminal, so rows never wrap; without a width (a pipe) it is the one wide table, unchanged.
@Suite struct AlertStatusListTests {
    static let rows: [AlertStatusList.Row] = [
        AlertStatusList.Row(
            id: 3, counterID: 520002, counterName: "Магазин «Сезонные товары для дома и сада»",
            metricLabel: "goal \"Оформление заказа\"",
            apiName: "ym:s:goal4001reaches", kind: "stopped", since: Day(iso: "2026-11-28")!,
            lastDay: Day(iso: "2026-11-30")!,
            value: 0, expected: 25, valueText: "0", expectedText: "~25", toldValue: 0, toldExpected: 24,
            toldAt: Date(timeIntervalSince1970: 1_764_568_800)),
        AlertStatusList.Row(
            id: 12, counterID: 515151, counterName: "Блог", metricLabel: "visits", apiName: "ym:s:visits", kind: "drop",
            since: Day(iso: "2026-11-29")!, lastDay: Day(iso: "2026-11-30")!, value: 200, expected: 600,
            valueText: "200",
            expectedText: "~600", toldValue: 210, toldExpected: 610, toldAt: Date(timeIntervalSince1970: 1_764_568_800))
    ]

    func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    }

    @Test func atEightyColumnsEveryDateKindAndNameReadsWhole() {
        let text = AlertStatusList.text(Self.rows, maxWidth: 80)
        #expect(lines(text).allSatisfy { displayWidth(of: String($0)) <= 80 }, "\(text)")
        #expect(!text.contains("…"), "\(text)")
        for whole in [
            "2026-11-28", "2026-11-30", "stopped", "drop", "Магазин «Сезонные товары для дома и сада»",
            "goal \"Оформление заказа\"", "2025-12-01T06:00:00Z"
        ] {
            #expect(text.contains(whole), "\(whole) in\n\(text)")
        }
    }

    @Test func atFortyColumnsNoRowWraps() {
        let text = AlertStatusList.text(Self.rows, maxWidth: 40)
        #expect(lines(text).allSatisfy { displayWidth(of: String($0)) <= 40 }, "\(text)")
        // Short cells whole; only a name longer than the room beside the id is cut.
        for whole in ["2026-11-28", "stopped", "drop", "Блог", "~600", "2025-12-01T06:00:00Z"] {
            #expect(text.contains(whole), "\(whole) in\n\(text)")
        }
        let cut = text.components(separatedBy: "…").count - 1
        #expect(cut <= 2, "\(text)")
    }

    @Test func withoutAWidthItIsOneTableAndTheJSONKeepsItsMembers() throws {
        let text = AlertStatusList.text(Self.rows, maxWidth: nil)
        #expect(lines(text).count == 4, "\(text)")
        #expect(lines(text).first?.hasPrefix("ID  Counter  Name") == true, "\(text)")
        #expect(AlertStatusList.text([], maxWidth: 80) == "No open alerts.\n")
        let json = AlertStatusList.json(Self.rows).serialized(pretty: false)
        for member in [
            "\"version\":1", "\"id\":3", "\"counter_id\":520002",
            "\"api_name\":\"ym:s:goal4001reaches\",\"grain\":\"day\"", "\"since\":\"2026-11-28\"",
            "\"last_day\":\"2026-11-30\"", "\"told_value\":0", "\"told_expected\":24",
            "\"told_at\":\"2025-12-01T06:00:00Z\""
        ] {
            #expect(json.contains(member), "\(member) in \(json)")
        }
    }

    /// An hourly outage listed beside a day's episode: its grain in the kind, its hours beside the days;
    /// its JSON object carries `since_hour` and `last_hour`, a day's neither.
    @Test func anHourlyRowSaysItsGrainAndHours() throws {
        let hourly = AlertStatusList.Row(
            id: 14, counterID: 520008, counterName: "Магазин «До обеда»", metricLabel: "visits", apiName: "ym:s:visits",
            kind: "stopped", since: Day(iso: "2026-12-01")!, lastDay: Day(iso: "2026-12-02")!, value: 0, expected: 63,
            valueText: "0", expectedText: "~63", toldValue: 0, toldExpected: 58,
            toldAt: Date(timeIntervalSince1970: 1_764_600_000),
            grain: "hour", sinceHour: 14, lastHour: 2)
        let rows = [Self.rows[1], hourly]
        for width in [nil, 80] as [Int?] {
            let text = AlertStatusList.text(rows, maxWidth: width)
            for whole in ["stopped (hourly)", "2026-12-01 14:00", "2026-12-02 02:00"] {
                #expect(text.contains(whole), "\(whole) in\n\(text)")
            }
        }
        let json = AlertStatusList.json(rows).serialized(pretty: false)
        #expect(
            json.contains(
                "\"grain\":\"hour\",\"kind\":\"stopped\",\"since\":\"2026-12-01\",\"last_day\":\"2026-12-02\",\"since_hour\":\"14:00\",\"last_hour\":\"02:00\""
            ), "\(json)")
        #expect(json.components(separatedBy: "since_hour").count == 2, "only the hourly object: \(json)")
    }
}
