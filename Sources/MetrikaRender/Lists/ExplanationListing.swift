import MetrikaModel

/// An explanation as `metrika explain` and MCP's `explain_change` show it: the headline first, then
/// per dimension its segments (value, expected, change, share), "Other" and new/gone named, sampling
/// shown. The shown changes are `ContributionRounding`'s, so they add up to the total in the table,
/// the CSV and the JSON alike.
package enum ExplanationListing {
    /// One examined dimension.
    package struct Part: Sendable {
        package var name: String
        package var apiName: String
        package var explained: ExplainedDimension
        /// The share of visits the API read (nil: not sampled).
        package var sampleShare: Double?
        /// Its name as `metrika report` heads it (`Traffic source`): the table's title and first column.
        package var title: String

        package init(
            name: String, apiName: String, explained: ExplainedDimension, sampleShare: Double?, title: String? = nil
        ) {
            self.title = title ?? name
            self.name = name
            self.apiName = apiName
            self.explained = explained
            self.sampleShare = sampleShare
        }
    }

    /// Everything a listing shows.
    package struct Input: Sendable {
        package var counterID: Int
        package var metric: Metric
        package var period: DateRange
        /// `alert`, `previous` or `range`.
        package var baselineKind: String
        package var baselineDays: [Day]
        package var headline: String
        package var driver: (part: Int, segment: Int)?
        package var parts: [Part]
        /// A rise's robots: their percent of the period's visits and of the baseline's; nil for
        /// anything but a rise, or when the API did not say.
        package var robots: (share: Double, expected: Double)?
        /// The metric's title, a goal by its name; nil: the metric's own.
        package var metricTitle: String?

        package init(
            counterID: Int, metric: Metric, period: DateRange, baselineKind: String, baselineDays: [Day],
            headline: String, driver: (part: Int, segment: Int)?, parts: [Part],
            robots: (share: Double, expected: Double)? = nil, metricTitle: String? = nil
        ) {
            self.metricTitle = metricTitle
            self.robots = robots
            self.counterID = counterID
            self.metric = metric
            self.period = period
            self.baselineKind = baselineKind
            self.baselineDays = baselineDays
            self.headline = headline
            self.driver = driver
            self.parts = parts
        }
    }

    static func text(_ value: Double?, _ metric: Metric) -> String {
        ValueFormatter.format(
            Quantity(value, unit: metric.unit, currency: metric.currency), grouping: true,
            missing: ValueFormatter.missingInTable,
            currencySign: true)
    }

    /// A value or expected value as CSV and JSON carry it: exact to 2 decimals past what the table
    /// shows (a segment's expected is a scaled mean: 955.5516736401673 is 955.55), never a float's
    /// leftovers (0.0000000000004547 is 0).
    static func exact(_ value: Double?, _ metric: Metric) -> Double? {
        guard let value, value.isFinite else { return value }
        let factor = ContributionRounding.power(min(ContributionRounding.fractionDigits(for: metric.unit), 2) + 2)
        let rounded = (value * factor).rounded() / factor
        return rounded == 0 ? 0 : rounded
    }

    /// The row's kind in CSV and JSON: `overlap`, `other`, or its status.
    static func statusWord(_ segment: SegmentContribution<Double>) -> String {
        segment.isOverlap ? "overlap" : segment.isOther ? "other" : segment.status.rawValue
    }

    static func status(_ segment: SegmentContribution<Double>, plural: String) -> String {
        if segment.isOverlap { return "counted in several \(plural)" }
        if segment.isOther { return "\(segment.folded) more" }
        switch segment.status {
        case .new: return "new"
        case .vanished: return "gone"
        case .continuing: return ""
        }
    }

    /// A share as a whole percent: `61%` (below 1: one decimal, `0.4%`).
    package static func percent(_ value: Double) -> String {
        DecimalText.format(value, fractionDigits: abs(value) < 1 && value != 0 ? 1 : 0) + "%"
    }

    /// The robots' percent now and in the baseline, with the same digits (`1% (3%)`, `0.4% (1.0%)`,
    /// never `1% (1.0%)`).
    package static func robotPercents(_ share: Double, _ expected: Double) -> (share: String, expected: String) {
        let small = [share, expected].contains { abs($0) < 1 && $0 != 0 }
        return (
            DecimalText.format(share, fractionDigits: small ? 1 : 0) + "%",
            DecimalText.format(expected, fractionDigits: small ? 1 : 0) + "%"
        )
    }

    static func periodText(_ range: DateRange) -> String {
        range.from == range.to ? range.from.iso : range.from.iso + ".." + range.to.iso
    }

    /// The baseline in words.
    package static func baselineText(_ input: Input) -> String {
        switch input.baselineKind {
        case "alert": return "median of " + input.baselineDays.map(\.iso).joined(separator: ", ")
        default:
            guard let first = input.baselineDays.first, let last = input.baselineDays.last else { return "" }
            let range = first == last ? first.iso : first.iso + ".." + last.iso
            // A baseline of another length is its mean scaled to the period's days (Explain).
            guard let days = DateRange(from: first, to: last)?.dayCount, days != input.period.dayCount else {
                return range
            }
            let period = input.period.dayCount
            return range + " (\(days) days, scaled to \(period == 1 ? "1 day" : "\(period) days"))"
        }
    }

    /// The table text: the headline, then one table per dimension.
    package static func text(_ input: Input, maxWidth: Int?) -> String {
        var out = input.headline + "\n"
        let title = input.metricTitle ?? input.metric.title
        out += "\(title) on \(periodText(input.period)) against \(baselineText(input))\n"
        if let robots = input.robots {
            let shown = robotPercents(robots.share, robots.expected)
            out += "Robots: \(shown.share) of the visits (\(shown.expected) in the baseline)\n"
        }
        // The period's chart annotations (issue 48 item 6: `annotation on Sun 2026-11-29: "…"`) go
        // here, under the baseline line and above the tables.
        for part in input.parts {
            let shown = part.explained.shown
            let decomposition = part.explained.decomposition
            let rate = shown.mixes != nil
            // A rate's segment moves the total rate by its mix + rate effect, not by its own rate's
            // change (PC 14.6% against 15.7% moved the total by -0.3 pp): the column says "Effect".
            var columns: [TextTable.Column] = [
                .init(part.title), .init("Value", alignment: .right), .init("Expected", alignment: .right),
                .init(rate ? "Effect" : "Change", alignment: .right), .init("Share", alignment: .right)
            ]
            if rate { columns += [.init("Mix", alignment: .right), .init("Rate", alignment: .right)] }
            // `new`, `gone`, and Other's `N more`: what the row is.
            columns.append(.init("Status"))
            // A count's tables are ranked by concentration (the legend says what it is); a rate's headline
            // reads its effects instead.
            var title = part.title
            if !rate { title += String(format: " (concentration %.2f)", decomposition.concentration) }
            if let share = part.sampleShare {
                title += ", sampled: \(DecimalText.format(share * 100, fractionDigits: 0))% of visits"
            }
            var table = TextTable(columns: columns, title: title)
            // A count's expected is shown as value − the shown change, so each row reads as it adds up
            // (0 − 44 is −44, never −43 beside an expected rounded on its own); rates and money keep
            // their own rounding (their changes are in points or cents of a different quantity).
            let counts = input.metric.unit == .count && shown.mixes == nil
            func expectedText(_ value: Double?, _ expected: Double?, _ change: Int) -> String {
                guard counts, let value, value.isFinite, value == value.rounded() else {
                    return text(expected, input.metric)
                }
                return text(value - Double(change), input.metric)
            }
            for (index, segment) in decomposition.segments.enumerated() {
                var row = [
                    segment.name, text(segment.value, input.metric),
                    expectedText(segment.value, segment.expected, shown.changes[index]),
                    shown.signedText(shown.changes[index]),
                    shown.percentShares.map { "\($0[index])%" } ?? ""
                ]
                if let mixes = shown.mixes, let rates = shown.rates {
                    row += [shown.signedText(mixes[index]), shown.signedText(rates[index])]
                }
                row.append(status(segment, plural: part.explained.plural))
                table.append(row)
            }
            var total = [
                "Total", text(decomposition.value, input.metric),
                expectedText(decomposition.value, decomposition.expected, shown.change),
                shown.signedText(shown.change), shown.change == 0 ? "" : "100%"
            ]
            if let mix = shown.mix, let rateEffect = shown.rate {
                total += [shown.signedText(mix), shown.signedText(rateEffect)]
            }
            total.append("")
            table.append(total)
            out += "\n" + table.render(maxWidth: maxWidth)
        }
        if let first = input.parts.first {
            out += "\n" + legend(rate: first.explained.shown.mixes != nil) + "\n"
        }
        return out
    }

    /// The line under the tables that says what their columns mean.
    package static func legend(rate: Bool) -> String {
        rate
            ? "Effect: what a segment moved the total rate by, Mix + Rate. Mix: its share of visits moved; Rate: its own rate moved. Share: of the total change (the shares add up to 100%)."
            : "Change: the segment's part of the total change; Share: of the total change (the shares add up to 100%). Concentration: 0 when every segment moved in proportion to its size, towards 1 when a small one made all of it."
    }

    package static let csvHeader = [
        "dimension", "segment", "status", "value", "expected", "change", "share_percent", "mix", "rate"
    ]
    /// The first CSV column holding numbers (written as numbers: a leading `-` is no formula).
    package static let csvNumbersFrom = 3

    /// One CSV row per segment of each dimension, then its total row (`segment` = `Total`).
    package static func csvRows(_ input: Input) -> [[String]] {
        var rows: [[String]] = []
        for part in input.parts {
            let shown = part.explained.shown
            let decomposition = part.explained.decomposition
            func plain(_ units: Int) -> String {
                ContributionRounding.signedText(
                    units, fractionDigits: shown.fractionDigits, unit: .number, grouping: false
                ).replacingOccurrences(of: "+", with: "")
            }
            for (index, segment) in decomposition.segments.enumerated() {
                rows.append([
                    part.name, segment.name, statusWord(segment),
                    ValueFormatter.raw(exact(segment.value, input.metric)),
                    ValueFormatter.raw(exact(segment.expected, input.metric)),
                    plain(shown.changes[index]), shown.percentShares.map { "\($0[index])" } ?? "",
                    shown.mixes.map { plain($0[index]) } ?? "", shown.rates.map { plain($0[index]) } ?? ""
                ])
            }
            rows.append([
                part.name, "Total", "total", ValueFormatter.raw(exact(decomposition.value, input.metric)),
                ValueFormatter.raw(exact(decomposition.expected, input.metric)),
                plain(shown.change), shown.change == 0 ? "" : "100", shown.mix.map(plain) ?? "",
                shown.rate.map(plain) ?? ""
            ])
        }
        return rows
    }

    /// The JSON document (docs/json.md): `{"version":1, …}`. Changes are shown values (they add up to
    /// `change`); `value`/`expected` are exact.
    package static func document(_ input: Input, versioned: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = versioned ? [("version", .number(1))] : []
        let scale = ContributionRounding.power(input.parts.first?.explained.shown.fractionDigits ?? 0)
        func number(_ units: Int) -> JSONValue { .number(Double(units) / scale) }
        members += [
            ("counter_id", .number(Double(input.counterID))),
            ("metric", .string(input.metric.shortName)),
            ("date1", .string(input.period.from.iso)),
            ("date2", .string(input.period.to.iso)),
            (
                "against",
                .object([
                    ("kind", .string(input.baselineKind)),
                    ("days", .array(input.baselineDays.map { .string($0.iso) }))
                ])
            ),
            ("headline", .string(input.headline))
        ]
        if let driver = input.driver, driver.part < input.parts.count {
            let part = input.parts[driver.part]
            members.append(
                (
                    "driver",
                    .object([
                        ("dimension", .string(part.name)),
                        ("segment", .string(part.explained.decomposition.segments[driver.segment].name)),
                        ("change", number(part.explained.shown.changes[driver.segment]))
                    ])
                ))
        } else {
            members.append(("driver", .null))
        }
        if let first = input.parts.first {
            let decomposition = first.explained.decomposition
            members += [
                ("value", .number(exact(decomposition.value, input.metric))),
                ("expected", .number(exact(decomposition.expected, input.metric))),
                ("change", number(first.explained.shown.change))
            ]
            let relative = decomposition.expected == 0 ? nil : (decomposition.value / decomposition.expected - 1) * 100
            members.append(("change_percent", .number(relative.map { ($0 * 10).rounded() / 10 })))
            members.append(
                (
                    "robots",
                    input.robots.map { robots in
                        .object([
                            ("share", .number((robots.share * 10).rounded() / 10)),
                            ("expected", .number((robots.expected * 10).rounded() / 10))
                        ])
                    } ?? .null
                ))
        }
        members.append(
            (
                "dimensions",
                .array(
                    input.parts.map { part in
                        let shown = part.explained.shown
                        let decomposition = part.explained.decomposition
                        var dimension: [(String, JSONValue)] = [
                            ("dimension", .string(part.name)), ("api_name", .string(part.apiName)),
                            ("concentration", .number((decomposition.concentration * 1000).rounded() / 1000)),
                            ("sampled", .bool(part.sampleShare != nil)), ("sample_share", .number(part.sampleShare)),
                            ("change", number(shown.change))
                        ]
                        if let mix = shown.mix, let rate = shown.rate {
                            dimension += [("mix", number(mix)), ("rate", number(rate))]
                        }
                        dimension.append(
                            (
                                "segments",
                                .array(
                                    decomposition.segments.enumerated().map { index, segment in
                                        var item: [(String, JSONValue)] = [
                                            ("name", .string(segment.name)), ("other", .bool(segment.isOther)),
                                            ("value", .number(exact(segment.value, input.metric))),
                                            ("expected", .number(exact(segment.expected, input.metric))),
                                            ("change", number(shown.changes[index])),
                                            (
                                                "share_percent",
                                                .number(shown.percentShares.map { Double($0[index]) })
                                            ),
                                            ("status", .string(statusWord(segment)))
                                        ]
                                        if segment.isOther { item.append(("folded", .number(Double(segment.folded)))) }
                                        if let mixes = shown.mixes, let rates = shown.rates {
                                            item += [("mix", number(mixes[index])), ("rate", number(rates[index]))]
                                        }
                                        return .object(item)
                                    })
                            ))
                        return .object(dimension)
                    })
            ))
        return .object(members)
    }
}
