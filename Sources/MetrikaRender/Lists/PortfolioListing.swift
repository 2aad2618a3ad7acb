import Foundation
import MetrikaModel

/// The portfolio (`metrika report --counter all`, MCP `get_report` with `counter_ids: "all"`): one row
/// per counter with the period's totals, sorted by visits, and a Total row that sums the counts,
/// weights the rates as Metrika does (`Aggregator`) and never sums users. One table, one CSV and one
/// JSON document for every entry point (docs/reports.md, docs/json.md).
package enum PortfolioListing {
    /// The columns, in order: visits, pageviews, users, bounce rate, page depth, time on site.
    package static let metrics: [Metric] = [
        .visits, .pageviews, .users, .bounceRate, .pageDepth, .avgVisitDuration
    ]

    /// What the Total row's users cell says: users are never summed over counters.
    package static let usersNotSummed = "not summed"

    /// The note under the table that explains the Total's users cell.
    package static let usersNote =
        "Total users are not summed: a person who visits several of the sites is one user of each."

    /// One counter's row.
    package struct Row: Sendable {
        package var counter: Counter
        /// The days it covers (a counter created within the period starts on its creation day).
        package var range: DateRange
        /// The period's values, aligned with `metrics`.
        package var values: [Quantity]
        /// With `--compare`: the same-length period just before, aligned with `metrics`.
        package var previous: [Quantity]?

        package init(counter: Counter, range: DateRange, values: [Quantity], previous: [Quantity]? = nil) {
            self.counter = counter
            self.range = range
            self.values = values
            self.previous = previous
        }

        /// Visits, for sorting (unknown: last).
        var visits: Double { values.first?.value ?? -1 }

        /// The change of each value against the previous period (nil without one).
        package var changes: [Change]? {
            previous.map { previous in zip(previous, values).map { Change(from: $0, to: $1) } }
        }
    }

    /// The whole portfolio: every counter's row (sorted by visits), the Total over all of them.
    package struct Report: Sendable {
        /// The days covered: the span of the counters' ranges.
        package var period: DateRange
        package var rows: [Row]
        package var compare: Bool
        /// Counters that could not be read (their failure in words), left out of the rows and the Total.
        package var failed: [(counterID: Int, reason: String)] = []

        /// `rows` sorted by visits (most first; unknown last), ties by counter id.
        package init(period: DateRange, rows: [Row], compare: Bool) {
            self.period = period
            self.rows = rows.sorted { ($0.visits, -$0.counter.id) > ($1.visits, -$1.counter.id) }
            self.compare = compare
        }

        /// The Total of `metrics` over every row: counts summed, bounce rate and time on site weighted
        /// by visits, page depth = pageviews / visits; users nil (never summed). Unknown when a
        /// counter's value is.
        package var total: [Quantity] { Self.total(rows.map(\.values)) }

        /// The previous period's Total (with `--compare`).
        package var previousTotal: [Quantity]? {
            guard compare else { return nil }
            return Self.total(rows.map { $0.previous ?? PortfolioListing.metrics.map { Quantity(nil, unit: $0.unit) } })
        }

        /// The Total's change against the previous period's.
        package var totalChanges: [Change]? {
            previousTotal.map { previous in zip(previous, total).map { Change(from: $0, to: $1) } }
        }

        static func total(_ rows: [[Quantity]]) -> [Quantity] {
            let metrics = PortfolioListing.metrics
            // Each counter's period values are one "row" of the Aggregator: the same weighting a week
            // of days gets. Two rows at least, so that a lone counter's users are not taken as a total.
            let values = rows.map { $0.map(\.value) }
            var summed =
                values.isEmpty
                ? metrics.map { _ in nil } : Aggregator.aggregate(metrics: metrics, rows: values + [zeros])
            summed[metrics.firstIndex { $0.apiName == Metric.users.apiName }!] = nil
            return zip(metrics, summed).map { Quantity($1, unit: $0.unit) }
        }

        /// A counter with no visits: adds nothing to any sum or weight.
        static let zeros: [Double?] = PortfolioListing.metrics.map { $0.aggregation == .sum ? 0 : nil }

        /// The counter whose visits fell most against the previous period (a fall only), with the change.
        package var fellMost: (row: Row, change: Double)? {
            var worst: (row: Row, change: Double)?
            for row in rows {
                guard case .relative(let change)? = row.changes?.first, change < 0 else { continue }
                if worst == nil || change < worst!.change { worst = (row, change) }
            }
            return worst
        }

        /// The line that names it: `Fell most: 1002 Shop — visits -42.0% (1 234 → 716).` (the name
        /// through the terminal's sanitizer: the line is printed under the table).
        package var fellMostLine: String? {
            guard let (row, change) = fellMost, let before = row.previous?.first else { return nil }
            let now = ValueFormatter.format(row.values[0], grouping: true, missing: "—")
            let then = ValueFormatter.format(before, grouping: true, missing: "—")
            return
                "Fell most: \(row.counter.id) \(TextTable.displaySafe(row.counter.displayName)) — visits \(Change.relative(change).text()) (\(then) → \(now))."
        }
    }

    // MARK: - Table

    /// The table of `rows` (a page of the report's rows), with the Total over all of them last.
    package static func table(_ report: Report, rows: ArraySlice<Row>) -> TextTable {
        var columns: [TextTable.Column] = [.init("ID", alignment: .right), .init("Name")]
        for metric in metrics {
            columns.append(.init(metric.title, alignment: .right))
            if report.compare { columns.append(.init("change", alignment: .right, staysWithPrevious: true)) }
        }
        let counters = report.rows.count
        var table = TextTable(
            columns: columns,
            title:
                "Portfolio \(report.period.from.iso) – \(report.period.to.iso): \(counters) counter\(counters == 1 ? "" : "s"), by visits"
        )
        table.keyColumnCount = 2
        for row in rows {
            table.append([String(row.counter.id), row.counter.displayName] + cells(row.values, row.changes))
        }
        table.appendSeparator()
        var total = cells(report.total, report.totalChanges)
        total[(metrics.firstIndex { $0.apiName == Metric.users.apiName }!) * (report.compare ? 2 : 1)] =
            usersNotSummed
        table.append(["", "Total (\(counters) counter\(counters == 1 ? "" : "s"))"] + total)
        return table
    }

    static func cells(_ values: [Quantity], _ changes: [Change]?) -> [String] {
        var cells: [String] = []
        for (index, value) in values.enumerated() {
            cells.append(ValueFormatter.format(value, grouping: true, missing: ValueFormatter.missingInTable))
            if let changes { cells.append(changes[index].text()) }
        }
        return cells
    }

    /// The lines under the table: which rows it shows of how many, the users note, the fall.
    package static func footer(_ report: Report, shown: Range<Int>) -> [String] {
        var lines: [String] = []
        if shown.count < report.rows.count {
            lines.append(
                "Showing counters \(shown.lowerBound + 1)–\(shown.upperBound) of \(report.rows.count) by visits; the Total is over all \(report.rows.count)."
            )
        }
        lines.append(usersNote)
        if let fell = report.fellMostLine { lines.append(fell) }
        return lines
    }

    // MARK: - CSV

    /// The CSV header: `counter_id,name,site`, then each metric (with `--compare` its `_previous` and
    /// `_change_pct` / `_change_pp`).
    package static func csvHeader(compare: Bool) -> [String] {
        var header = ["counter_id", "name", "site"]
        for metric in metrics {
            header.append(metric.columnName)
            if compare {
                header += [
                    metric.columnName + "_previous",
                    metric.columnName + (metric.unit == .percent ? "_change_pp" : "_change_pct")
                ]
            }
        }
        return header
    }

    /// A counter's CSV row.
    package static func csvRow(_ row: Row, raw: Bool) -> [String] {
        [String(row.counter.id), row.counter.name, row.counter.site]
            + csvCells(row.values, previous: row.previous, changes: row.changes, raw: raw)
    }

    /// The Total's CSV row: `total` in the id column; users empty (never summed).
    package static func csvTotal(_ report: Report, raw: Bool) -> [String] {
        ["total", "Total", ""]
            + csvCells(report.total, previous: report.previousTotal, changes: report.totalChanges, raw: raw)
    }

    static func csvCells(_ values: [Quantity], previous: [Quantity]?, changes: [Change]?, raw: Bool) -> [String] {
        func text(_ quantity: Quantity) -> String {
            if raw { return ValueFormatter.raw(quantity.value) }
            if quantity.unit == .seconds, let value = quantity.value, value.isFinite {
                return ValueFormatter.duration(value, alwaysHours: true)
            }
            return ValueFormatter.format(quantity, grouping: false, missing: "")
        }
        var cells: [String] = []
        for (index, value) in values.enumerated() {
            cells.append(text(value))
            if let previous, let changes {
                cells.append(text(previous[index]))
                let change = changes[index].number.map {
                    raw ? ValueFormatter.raw($0) : DecimalText.format($0, fractionDigits: 1)
                }
                cells.append(change ?? "")
            }
        }
        return cells
    }

    // MARK: - JSON

    /// `report --counter all --json` (docs/json.md): `version`, `kind: "portfolio"`, `period`,
    /// `columns`, `rows` (a page of them), `rows_total`, `total` (users null: never summed),
    /// `fell_most` with `--compare`, `notes`.
    package static func document(_ report: Report, rows: ArraySlice<Row>, versioned: Bool = true) -> JSONValue {
        var members: [(String, JSONValue)] = versioned ? [("version", .number(1))] : []
        members.append(("kind", .string("portfolio")))
        members.append(
            ("period", .object([("from", .string(report.period.from.iso)), ("to", .string(report.period.to.iso))])))
        members.append(
            (
                "columns",
                .array(
                    metrics.map { metric in
                        .object([
                            ("name", .string(metric.columnName)), ("unit", .string(metric.unit.rawValue)),
                            ("title", .string(metric.title))
                        ])
                    })
            ))
        members.append(
            (
                "rows",
                .array(
                    rows.map { row in
                        var object: [(String, JSONValue)] = [
                            ("counter_id", .number(Double(row.counter.id))), ("name", .string(row.counter.name)),
                            ("site", .string(row.counter.site)), ("from", .string(row.range.from.iso)),
                            ("to", .string(row.range.to.iso))
                        ]
                        object += values(row.values)
                        if let previous = row.previous, let changes = row.changes {
                            object.append(("previous", .object(values(previous))))
                            object.append(("change", .object(changeValues(changes))))
                        }
                        return .object(object)
                    })
            ))
        members.append(("rows_total", .number(Double(report.rows.count))))
        var total: [(String, JSONValue)] = [("counters", .number(Double(report.rows.count)))]
        total += values(report.total)
        if let previous = report.previousTotal, let changes = report.totalChanges {
            total.append(("previous", .object(values(previous))))
            total.append(("change", .object(changeValues(changes))))
        }
        total.append(("users_summed", .bool(false)))
        members.append(("total", .object(total)))
        if report.compare {
            if let (row, change) = report.fellMost {
                members.append(
                    (
                        "fell_most",
                        .object([
                            ("counter_id", .number(Double(row.counter.id))), ("name", .string(row.counter.name)),
                            ("metric", .string(Metric.visits.columnName)), ("change_pct", .number(change))
                        ])
                    ))
            } else {
                members.append(("fell_most", .null))
            }
        }
        if !report.failed.isEmpty {
            members.append(
                (
                    "failed",
                    .array(
                        report.failed.map {
                            .object([("counter_id", .number(Double($0.counterID))), ("error", .string($0.reason))])
                        })
                ))
        }
        return .object(members)
    }

    static func values(_ quantities: [Quantity]) -> [(String, JSONValue)] {
        zip(metrics, quantities).map { metric, quantity in
            (metric.columnName, quantity.value.map { $0.isFinite ? JSONValue.number($0) : .null } ?? .null)
        }
    }

    static func changeValues(_ changes: [Change]) -> [(String, JSONValue)] {
        zip(metrics, changes).map { metric, change in
            (metric.columnName, change.number.map(JSONValue.number) ?? .null)
        }
    }
}
