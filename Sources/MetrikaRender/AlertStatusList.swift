import Foundation
import MetrikaModel

/// The list of open alerts (`metrika alert --status`): a table that adapts to the terminal as report
/// tables do, and its JSON. One renderer for every entry point that lists them.
///
/// When the table is wider than the terminal it is split into blocks, each repeating the alert's id
/// (the counter with its name, the metric and kind, then the days and values), so dates, kinds and
/// names read whole at 80 columns; a name too long to stand beside the id even alone is cut with `…`,
/// and no line is wider than the terminal, so rows never wrap.
package enum AlertStatusList {
    /// One open alert, in the words and numbers the list shows.
    package struct Row: Sendable, Equatable {
        package var id: Int
        package var counterID: Int
        package var counterName: String
        /// `visits`, `goal "Заказ"`: as the alert's line says it.
        package var metricLabel: String
        /// The metric's API name.
        package var apiName: String
        /// `drop`, `rise`, `stopped`.
        package var kind: String
        package var since: Day
        package var lastDay: Day
        /// The latest value and expected value measured, as numbers and as the alert lines write them.
        package var value: Double
        package var expected: Double
        package var valueText: String
        package var expectedText: String
        /// The value and expected value when it was told, and when.
        package var toldValue: Double
        package var toldExpected: Double
        package var toldAt: Date
        /// `day` (the daily check's episodes) or `hour` (`alert --today`'s).
        package var grain: String
        /// The hour grain's first hour on `since` and last finished hour on `lastDay` (00–23, the
        /// counter's time zone); nil for a day's episode.
        package var sinceHour: Int?
        package var lastHour: Int?

        package init(
            id: Int, counterID: Int, counterName: String, metricLabel: String, apiName: String, kind: String,
            since: Day, lastDay: Day,
            value: Double, expected: Double, valueText: String, expectedText: String, toldValue: Double,
            toldExpected: Double, toldAt: Date,
            grain: String = "day", sinceHour: Int? = nil, lastHour: Int? = nil
        ) {
            self.grain = grain
            self.sinceHour = sinceHour
            self.lastHour = lastHour
            self.id = id
            self.counterID = counterID
            self.counterName = counterName
            self.metricLabel = metricLabel
            self.apiName = apiName
            self.kind = kind
            self.since = since
            self.lastDay = lastDay
            self.value = value
            self.expected = expected
            self.valueText = valueText
            self.expectedText = expectedText
            self.toldValue = toldValue
            self.toldExpected = toldExpected
            self.toldAt = toldAt
        }

        /// `2026-12-01`, or for the hour grain `2026-12-01 14:00`: when it began.
        package var sinceText: String { Self.moment(since, sinceHour) }
        /// The last day (and hour) a run saw it.
        package var lastText: String { Self.moment(lastDay, lastHour) }
        /// `stopped`, or `stopped (hourly)` for the hour grain: the table's kind says the grain.
        package var kindText: String { grain == "day" ? kind : "\(kind) (hourly)" }

        static func moment(_ day: Day, _ hour: Int?) -> String {
            guard let hour else { return day.iso }
            return day.iso + " " + LiveSnapshot.hourText(hour)
        }
    }

    /// The table (or "No open alerts."); `maxWidth` the terminal's width (nil: not a terminal, never cut).
    package static func text(_ rows: [Row], maxWidth: Int?) -> String {
        guard !rows.isEmpty else { return "No open alerts.\n" }
        var table = TextTable(columns: [
            .init("ID", alignment: .right), .init("Counter", alignment: .right), .init("Name", staysWithPrevious: true),
            .init("Metric"), .init("Kind", staysWithPrevious: true), .init("Since"),
            .init("Last day", staysWithPrevious: true), .init("Last value", alignment: .right),
            .init("Expected", alignment: .right, staysWithPrevious: true),
            .init("Told")
        ])
        // The id names a row in every block.
        table.keyColumnCount = 1
        let idWidth = max(2, rows.map { String($0.id).count }.max() ?? 0)
        // A text cell never wider than what stands beside the id (the counter's id before a name).
        let counterWidth = max(7, rows.map { String($0.counterID).count }.max() ?? 0)
        let room = maxWidth.map { max(1, $0 - idWidth - 2) }
        func fit(_ text: String, besides: Int = 0) -> String {
            guard let room else { return text }
            return TextTable.truncate(TextTable.displaySafe(text), toWidth: max(1, room - besides))
        }
        for row in rows {
            table.append([
                String(row.id), String(row.counterID),
                fit(TerminalText.sanitize(row.counterName, limit: 60), besides: counterWidth + 2),
                fit(TerminalText.sanitize(row.metricLabel, limit: 60), besides: 7 + 2), row.kindText, row.sinceText,
                row.lastText,
                row.valueText, row.expectedText, RFC3339.format(row.toldAt)
            ])
        }
        return table.render(maxWidth: maxWidth)
    }

    /// `{"version": 1, "alerts": [{"id": 3, "counter_id": 520002, …}]}`. An hour's episode also
    /// carries `since_hour` and `last_hour` (`"14:00"`), as the hourly alert's object carries `hour`.
    package static func json(_ rows: [Row]) -> JSONValue {
        .object([
            ("version", .number(1)),
            (
                "alerts",
                .array(
                    rows.map { row in
                        let hours: [(String, JSONValue)] = [
                            row.sinceHour.map { ("since_hour", .string(LiveSnapshot.hourText($0))) },
                            row.lastHour.map { ("last_hour", .string(LiveSnapshot.hourText($0))) }
                        ].compactMap { $0 }
                        return .object(
                            [
                                ("id", .number(Double(row.id))), ("counter_id", .number(Double(row.counterID))),
                                ("counter_name", .string(row.counterName)),
                                ("metric", .string(row.metricLabel)), ("api_name", .string(row.apiName)),
                                ("grain", .string(row.grain)), ("kind", .string(row.kind)),
                                ("since", .string(row.since.iso)), ("last_day", .string(row.lastDay.iso))
                            ] + hours + [
                                ("value", .number(row.value)), ("expected", .number(row.expected)),
                                ("told_value", .number(row.toldValue)), ("told_expected", .number(row.toldExpected)),
                                ("told_at", .string(RFC3339.format(row.toldAt)))
                            ])
                    })
            )
        ])
    }
}
