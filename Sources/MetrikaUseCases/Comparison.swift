import Foundation
import MetrikaModel

/// `--compare`: a period against the period of the same length just before it.
package enum Comparison {
    /// The period of the same length just before `range`.
    package static func previousRange(of range: DateRange) -> DateRange {
        DateRange(from: range.from.adding(days: -range.dayCount), to: range.from.adding(days: -1))!
    }

    /// A period with today in it cannot be compared like for like by day: today's hours so far
    /// would be set against a whole day of the previous period (−35% visits at 16:30 on an ordinary
    /// Monday). Refused rather than shown wrong, saying what to ask instead.
    package static func refuseToday(_ range: DateRange, counter: Counter, now: Date) throws {
        guard includesToday(range, counter: counter, now: now) else { return }
        let today = today(for: counter, now: now)
        let shifted = today.adding(days: -range.dayCount).iso
        let yesterday = today.adding(days: -1).iso
        if range.from == range.to {
            throw ParameterError(.compare, .notApplicable) {
                "\($0[.compare]) cannot compare today alone: its hours so far would be set against the whole of \(yesterday). "
                    + "Compare whole days (\($0[.to]) yesterday), or \($0.action(.watchToday(counterID: counter.id)))"
            }
        }
        throw ParameterError(.compare, .notApplicable) {
            "\($0[.compare]) cannot compare a period that ends today: today's hours so far would be set against the whole of \(shifted). "
                + "End the period yesterday (\($0[.to]) yesterday), or \($0.action(.watchToday(counterID: counter.id)))"
        }
    }

    /// Whether `range` holds the counter's today.
    package static func includesToday(_ range: DateRange, counter: Counter, now: Date) -> Bool {
        let today = today(for: counter, now: now)
        return range.from <= today && today <= range.to
    }

    /// The previous period's history: one more request at most (its days with the API's totals over
    /// it, in one answer), none when the history has it settled, none when it lies wholly before the
    /// counter's first day (then every previous value is unknown, never zero).
    package static func loadPrevious(
        _ loaded: HistoryLoader.Loaded, loader: HistoryLoader, metrics: [Metric], refresh: Bool
    ) async throws -> HistoryLoader.Loaded {
        let previous = previousRange(of: loaded.range)
        // A previous period cut by the counter's creation has no correct totals: don't ask for them.
        let whole = previous.from >= firstDataDay(of: loaded.counter)
        return try await loader.load(
            counter: loaded.counter, range: previous, metrics: metrics, grouping: nil, refresh: refresh,
            rangeTotals: whole)
    }

    /// Rows with their previous values: each row against the same days shifted back by the period's
    /// length (a day against the day N days earlier — the same weekday when N is whole weeks); the
    /// totals against the previous period's totals. A week or month row's users (non-additive) have
    /// no previous value: only the API's total over exactly those days would be right.
    package static func compare(
        _ rows: [Report.Row], with before: HistoryLoader.Loaded, current: DateRange, metrics: [Metric]
    ) -> (rows: [Report.Row], totals: Report.Previous) {
        let shift = current.dayCount
        let previous = previousRange(of: current)
        var compared = rows
        for index in compared.indices {
            guard let period = compared[index].period,
                let shifted = DateRange(from: period.from.adding(days: -shift), to: period.to.adding(days: -shift))
            else { continue }
            compared[index].previous = Report.Previous(
                period: shifted, values: HistoryLoader.aggregate(before, period: shifted, metrics: metrics))
        }
        return (
            compared,
            Report.Previous(
                period: previous, values: HistoryLoader.aggregate(before, period: previous, metrics: metrics))
        )
    }
}
