import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem

/// Composing the mail of `metrika mail`: each counter's table over the window, its change against the
/// window of the same length before, its chart (PNG inline, SVG attached), as one MIME message.
/// Delivering it (sendmail, a file, stdout) is the command's.
package struct MailComposer {
    /// Which days the mail covers, in each counter's time zone.
    package enum Window: Equatable, Sendable {
        /// The last N complete days, ending yesterday (`--last 7d`).
        case last(days: Int)
        /// A named period (`--period lastWeek`).
        case period(NamedPeriod)
    }

    /// What to compose, validated.
    package struct Request: Sendable {
        package var counterIDs: [Int]
        package var window: Window
        /// Metrics as asked for; nil means the defaults (`DefaultMetrics`).
        package var metrics: [Metric]?
        package var sender: MIMEAddress
        package var recipients: [MIMEAddress]
        package var subject: String?
        /// `--currency`: money in this currency; nil: in each counter's own.
        package var currency: Currency?

        package init(counterIDs: [Int], window: Window, metrics: [Metric]?, sender: MIMEAddress, recipients: [MIMEAddress], subject: String?, currency: Currency? = nil) {
            self.counterIDs = counterIDs
            self.window = window
            self.metrics = metrics
            self.sender = sender
            self.recipients = recipients
            self.subject = subject
            self.currency = currency
        }

        package var tableMetrics: [Metric] { DefaultMetrics.table(chosen: metrics) }
        package var chartMetrics: [Metric] { DefaultMetrics.chart(chosen: metrics) }
    }

    package let loader: HistoryLoader
    package let rasterizer: any ChartRasterizer
    package let activity: any Activity

    package init(loader: HistoryLoader, rasterizer: any ChartRasterizer, activity: any Activity) {
        self.loader = loader
        self.rasterizer = rasterizer
        self.activity = activity
    }

    /// The days of `window` for a counter whose today is `today`; a window reaching back before
    /// Metrika existed is a usage error (a wrong clock or METRIKA_NOW, most likely).
    package static func current(_ window: Window, today: Day, counterID: Int) throws -> DateRange {
        let range: DateRange
        let option: String
        switch window {
        case .last(let days):
            let yesterday = today.adding(days: -1)
            range = DateRange(from: yesterday.adding(days: -(days - 1)), to: yesterday)!
            option = "--last \(days)d"
        case .period(let period):
            let days = period.days(today: today)
            range = DateRange(from: days.from, to: days.to)!
            option = "--period \(period)"
        }
        if DateExpression.isBeforeMetrika(range.from) {
            throw UsageError("\(option) reaches back to \(range.from.iso) for counter \(counterID), before \(DateExpression.earliestDay.iso): Metrika has no data before 2008 (is the clock or METRIKA_NOW right?)")
        }
        return range
    }

    /// Each counter's section: its rows and totals over the window, the previous window's totals, its chart.
    package func sections(_ request: Request) async throws -> [Section] {
        var sections: [Section] = []
        for id in request.counterIDs {
            let counter = try await loader.counter(id: id)
            // Money (revenue, average order value) in --currency or the counter's own.
            let tableMetrics = try await loader.inCurrency(request.tableMetrics, counter: counter, requested: request.currency)
            let chartMetrics = try await loader.inCurrency(request.chartMetrics, counter: counter, requested: request.currency)
            let current = try Self.current(request.window, today: today(for: counter, now: activity.now()), counterID: id)
            let previous = Comparison.previousRange(of: current)
            let loaded = try await loader.load(counter: counter, range: current, metrics: tableMetrics, grouping: .day, refresh: false)
            let built = HistoryLoader.rows(from: loaded, metrics: tableMetrics)
            let before = try await loader.load(counter: counter, range: previous, metrics: tableMetrics, grouping: nil, refresh: false)
            let previousTotals = HistoryLoader.rows(from: before, metrics: tableMetrics).totals
            let chartData = try await ChartSeries.loadSeries(loader: loader, counter: counter, range: current, metrics: chartMetrics, grouping: .day, refresh: false)
            let chart = ChartSeries.makeChart([chartData], grouping: .day, title: nil, width: 800, height: nil)
            sections.append(Section(counter: counter, current: current, previous: previous, rows: built.rows, totals: built.totals,
                                    previousTotals: previousTotals, missingDays: loaded.missingDays + before.missingDays,
                                    svg: Data(chart.render().utf8)))
        }
        return sections
    }

    /// The whole message: sections, plain text and HTML parts, inline PNG charts, SVG attachments.
    package func compose(_ request: Request) async throws -> MIMEMessage {
        let sections = try await sections(request)
        let seed = UInt64.random(in: 1...UInt64.max)
        let seedTag = String(seed, radix: 16)
        let attachments = sections.map { section in
            MIMEPart.Image(data: section.svg, mediaType: "image/svg+xml", filename: "\(Self.chartName(section)).svg")
        }
        let reports = sections.map { Self.htmlSection($0, metrics: request.tableMetrics) }
        let charts = reports.map { $0.lineCharts(metrics: request.chartMetrics) }
        let inline = try Self.inlineImages(sections, charts: charts, seedTag: seedTag, rasterizer: rasterizer, activity: activity)
        let text = try Self.plainText(sections, metrics: request.tableMetrics, files: attachments.map(\.filename))
        let html = Self.htmlText(reports, charts: charts, images: inline)
        let now = activity.now()
        let offset = sections.first.flatMap { TimeZone(identifier: $0.counter.timeZoneName)?.secondsFromGMT(for: now) } ?? 0
        return MIMEMessage(
            from: request.sender, to: request.recipients, subject: request.subject ?? Self.defaultSubject(sections), date: now,
            utcOffsetSeconds: offset, seed: seed, body: MIMEPart.report(text: text, html: html, inline: inline, attachments: attachments))
    }

    // MARK: - Content

    package static func chartName(_ section: Section) -> String {
        "metrika-\(section.counter.id)-\(section.current.from.iso)_\(section.current.to.iso)"
    }

    /// A counter's part of the HTML, as `report --format html` builds it: the same summary, charts and
    /// table, compared with the previous window.
    package static func htmlSection(_ section: Section, metrics: [Metric]) -> HTMLReportSection {
        let layout = ReportLayout(dimensions: [], metrics: metrics, period: section.current, grouping: .day, multipleCounters: false, raw: false)
        return HTMLReportSection(counter: section.counter, layout: layout, rows: section.rows, totals: section.totals,
                                 previous: Report.Previous(period: section.previous, values: section.previousTotals),
                                 comparisonColumns: false, missingDays: section.missingDays)
    }

    /// The charts the HTML part shows, one per chart metric and counter, in order: PNG at 2×, which
    /// every mail reader displays (Gmail and Outlook drop SVG images). Without a working rasterizer
    /// the mail still goes out, with the SVGs inline and one warning line, because a cron mail without
    /// pictures beats no mail.
    package static func inlineImages(_ sections: [Section], charts: [[CompactLineChart]], seedTag: String, rasterizer: any ChartRasterizer, activity: any Activity) throws -> [MIMEPart.Image] {
        let documents = charts.map { $0.map { Data($0.document().utf8) } }
        var pngs: [[Data]]? = []
        do {
            for section in documents { pngs?.append(try section.map { try rasterizer.png(fromSVG: $0, scale: ChartSeries.pngScale) }) }
        } catch let error as ChartRasterizerError {
            activity.note("Warning: the charts are inline as SVG, which Gmail and Outlook do not show: \(error.message)")
            pngs = nil
        }
        var images: [MIMEPart.Image] = []
        for (index, section) in sections.enumerated() {
            for (number, chart) in charts[index].enumerated() {
                let name = "\(chartName(section))-\(chart.series.metric.columnName)"
                let contentID = "chart-\(section.counter.id)-\(number + 1).\(seedTag)@metrika"
                if let png = pngs?[index][number] {
                    images.append(MIMEPart.Image(data: png, mediaType: "image/png", filename: name + ".png", contentID: contentID))
                } else {
                    images.append(MIMEPart.Image(data: documents[index][number], mediaType: "image/svg+xml", filename: name + ".svg", contentID: contentID))
                }
            }
        }
        return images
    }

    package struct Section {
        package var counter: Counter
        package var current: DateRange
        package var previous: DateRange
        package var rows: [Report.Row]
        package var totals: [Quantity]
        package var previousTotals: [Quantity]
        package var missingDays: [Day]
        package var svg: Data
    }

    package static func defaultSubject(_ sections: [Section]) -> String {
        let names = sections.map { $0.counter.displayName }.joined(separator: ", ")
        guard let first = sections.first else { return "Metrika" }
        return "Metrika: \(names), \(first.current.from.iso) – \(first.current.to.iso)"
    }

    /// A total as the table shows it: exact counts, `%` with one decimal, mm:ss, two decimals, money
    /// to the kopeck with its sign (`1 250 000.00 ₽`).
    package static func format(_ quantity: Quantity) -> String {
        guard let value = quantity.value else { return "—" }
        switch quantity.unit {
        case .count: return grouped(ChartNumber.fixed(value, decimals: 0))
        default: return ChartValueFormat.label(value, unit: quantity.unit, currency: quantity.currency)
        }
    }

    /// Digits in groups of three, separated by spaces like the report table: `73920` → `73 920`.
    package static func grouped(_ digits: String) -> String {
        let sign = digits.hasPrefix("-") ? "-" : ""
        let body = Array(digits.dropFirst(sign.count))
        var result = ""
        for (index, digit) in body.enumerated() {
            if index > 0, (body.count - index) % 3 == 0 { result.append(" ") }
            result.append(digit)
        }
        return sign + result
    }

    /// The change from `before` to `now`, as `report --compare` shows it (MetrikaModel's `Change`):
    /// relative for counts and durations, percentage points for percentages.
    package static func change(from before: Quantity, to now: Quantity) -> String {
        Change(from: before, to: now).text()
    }

    package static func changeTable(_ section: Section, metrics: [Metric]) -> TextTable {
        var table = TextTable(columns: [
            .init("Metric"), .init(section.current.from.iso + " – " + section.current.to.iso, alignment: .right),
            .init(section.previous.from.iso + " – " + section.previous.to.iso, alignment: .right), .init("Change", alignment: .right),
        ])
        for (index, metric) in metrics.enumerated() where index < section.totals.count && index < section.previousTotals.count {
            table.append([metric.title, format(section.totals[index]), format(section.previousTotals[index]),
                          change(from: section.previousTotals[index], to: section.totals[index])])
        }
        return table
    }

    package static func plainText(_ sections: [Section], metrics: [Metric], files: [String]) throws -> String {
        var text = ""
        for (section, file) in zip(sections, files) {
            let memory = OutputWriter()
            let sink = ReportTableSink(output: memory, maxWidth: nil)
            sink.begin(ReportLayout(dimensions: [], metrics: metrics, period: section.current, grouping: .day, multipleCounters: false, raw: false))
            sink.beginSection(counter: section.counter, sampling: nil)
            sink.append(section.rows)
            try sink.endSection(totals: section.totals, missingDays: section.missingDays)
            sink.end()
            text += memory.text
            text += "\nChange against the previous \(section.current.dayCount) days:\n\n"
            text += changeTable(section, metrics: metrics).render()
            if !section.missingDays.isEmpty {
                text += "\nNo history for \(section.missingDays.count) day(s): run `metrika sync` before mailing.\n"
            }
            text += "\nChart: \(file) (attached).\n\n"
        }
        text += "-- \nSent by metrika \(MetrikaVersion.current).\n"
        return text
    }

    /// The HTML part: the shared report page (`HTMLReportPage`), each chart an `<img>` of its inline
    /// image, whose alt text is the chart's message (`Visits fell 12.0% to 3 085`).
    package static func htmlText(_ reports: [HTMLReportSection], charts: [[CompactLineChart]], images: [MIMEPart.Image]) -> String {
        var remaining = images[...]
        let sections = zip(reports, charts).map { report, sectionCharts in
            let figures = sectionCharts.map { chart -> HTMLReportPage.Figure in
                let image = remaining.popFirst()
                return .image(source: "cid:" + (image?.contentID ?? ""), alt: chart.message, width: CompactLineChart.width, height: chart.height)
            }
            return report.section(figures: figures)
        }
        let title = "Metrika: " + reports.map { $0.counter.displayName }.joined(separator: ", ")
        return HTMLReportPage(title: title, sections: sections, footer: "Sent by metrika \(MetrikaVersion.current)", maxWidth: mailWidth).render()
    }

    /// The widest the mail grows on a desktop: two 360 px charts, or two blocks of the table, side by side.
    package static let mailWidth = 760
}
