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
    /// The table's rows are grouped by the window's length (`tableGrouping(days:)`); the charts stay daily.
    package func sections(_ request: Request) async throws -> [Section] {
        var sections: [Section] = []
        for id in request.counterIDs {
            let counter = try await loader.counter(id: id)
            // Money (revenue, average order value) in --currency or the counter's own.
            let tableMetrics = try await loader.inCurrency(request.tableMetrics, counter: counter, requested: request.currency)
            let chartMetrics = try await loader.inCurrency(request.chartMetrics, counter: counter, requested: request.currency)
            let current = try Self.current(request.window, today: today(for: counter, now: activity.now()), counterID: id)
            let previous = Comparison.previousRange(of: current)
            let grouping = Self.tableGrouping(days: current.dayCount)
            let loaded = try await loader.load(counter: counter, range: current, metrics: tableMetrics, grouping: grouping, refresh: false)
            let built = HistoryLoader.rows(from: loaded, metrics: tableMetrics)
            let before = try await loader.load(counter: counter, range: previous, metrics: tableMetrics, grouping: nil, refresh: false)
            let previousTotals = HistoryLoader.rows(from: before, metrics: tableMetrics).totals
            let chartData = try await ChartSeries.loadSeries(loader: loader, counter: counter, range: current, metrics: chartMetrics, grouping: .day, refresh: false)
            let chart = ChartSeries.makeChart([chartData], grouping: .day, title: nil, width: 800, height: nil)
            sections.append(Section(counter: counter, current: current, previous: previous, metrics: tableMetrics, grouping: grouping,
                                    rows: built.rows, dailyRows: Self.dailyRows(loaded, metrics: tableMetrics), totals: built.totals,
                                    previousTotals: previousTotals, missingDays: loaded.missingDays + before.missingDays,
                                    svg: Data(chart.render().utf8)))
        }
        return sections
    }

    /// How a window's table is grouped: by day up to five weeks (35 rows at most), by week up to 26
    /// weeks (27 rows at most), by calendar month beyond — a quarter by day is 90 rows nobody reads
    /// on a phone, and Gmail clips an HTML part past 102 KB.
    package static func tableGrouping(days: Int) -> Grouping {
        days <= 35 ? .day : days <= 182 ? .week : .month
    }

    /// The rows by day of loaded history, whatever grouping it was loaded with (the charts' rows).
    static func dailyRows(_ loaded: HistoryLoader.Loaded, metrics: [Metric]) -> [Report.Row] {
        guard !loaded.periods.isEmpty else { return [] }
        var byDay = loaded
        byDay.periods = loaded.range.periods(.day)
        return HistoryLoader.rows(from: byDay, metrics: metrics).rows
    }

    /// The section with its table grouped by `grouping` instead: the rows `report --group` gives for
    /// the same days (weeks' and months' users from the API's totals for exactly those days).
    func regrouped(_ section: Section, by grouping: Grouping) async throws -> Section {
        let loaded = try await loader.load(counter: section.counter, range: section.current, metrics: section.metrics, grouping: grouping, refresh: false)
        var result = section
        result.grouping = grouping
        result.rows = HistoryLoader.rows(from: loaded, metrics: section.metrics).rows
        return result
    }

    /// The whole message: sections, plain text and HTML parts, inline PNG charts, SVG attachments.
    /// The HTML part is kept under `htmlBudget` bytes (`fitted`); what had to give way is said in it.
    package func compose(_ request: Request) async throws -> MIMEMessage {
        var sections = try await sections(request)
        let seed = UInt64.random(in: 1...UInt64.max)
        let seedTag = String(seed, radix: 16)
        // The charts are daily whatever the tables become: drawn once.
        let charts = sections.map { Self.htmlSection($0, metrics: request.tableMetrics).lineCharts(metrics: request.chartMetrics) }
        let inline = try Self.inlineImages(sections, charts: charts, seedTag: seedTag, rasterizer: rasterizer, activity: activity)
        let html = try await fitted(&sections, metrics: request.tableMetrics, charts: charts, images: inline)
        var attachments = sections.map { section in
            MIMEPart.Image(data: section.svg, mediaType: "image/svg+xml", filename: "\(Self.chartName(section)).svg")
        }
        let text = try Self.plainText(sections, metrics: request.tableMetrics, files: attachments.map(\.filename))
        for section in sections where section.tableLeftOut {
            attachments.append(MIMEPart.Image(data: try Self.csv(section), mediaType: "text/csv", filename: "\(Self.chartName(section)).csv"))
        }
        let now = activity.now()
        let offset = sections.first.flatMap { TimeZone(identifier: $0.counter.timeZoneName)?.secondsFromGMT(for: now) } ?? 0
        return MIMEMessage(
            from: request.sender, to: request.recipients, subject: request.subject ?? Self.defaultSubject(sections), date: now,
            utcOffsetSeconds: offset, seed: seed, body: MIMEPart.report(text: text, html: html, inline: inline, attachments: attachments))
    }

    // MARK: - Byte budget

    /// The most bytes (UTF-8) the HTML part may have: Gmail shows an HTML part of up to about 102 KB
    /// and clips the rest behind "[Message clipped] View entire message" (on a phone a bare page);
    /// 100 000 leaves a margin below it.
    package static let htmlBudget = 100_000

    /// The HTML part, made to fit `htmlBudget`. What gives way, in order (docs/cron.md):
    /// 1. every table one grouping coarser (day → week → month), while that still gives three rows;
    /// 2. the tables of the last counters, from the last one up, each replaced by a line saying
    ///    where it is (attached as CSV, in the text part, and the `metrika report` that shows it);
    ///    summaries and charts stay for every counter;
    /// 3. the summaries of the last counters, from the last one up, each as one line of values and
    ///    changes instead of cards;
    /// 4. when even that does not fit (dozens of counters), nothing is sent: a usage error asks to
    ///    split the counters over several mails. Never a cut document.
    func fitted(_ sections: inout [Section], metrics: [Metric], charts: [[CompactLineChart]], images: [MIMEPart.Image]) async throws -> String {
        func render(_ sections: [Section]) -> String {
            Self.htmlText(sections.map { Self.htmlSection($0, metrics: metrics) }, charts: charts, images: images)
        }
        var html = render(sections)
        while html.utf8.count > Self.htmlBudget, let first = sections.first, let coarser = Self.coarser(than: first.grouping, range: first.current) {
            for index in sections.indices { sections[index] = try await regrouped(sections[index], by: coarser) }
            html = render(sections)
        }
        var last = sections.count - 1
        while html.utf8.count > Self.htmlBudget, last >= 0 {
            sections[last].tableLeftOut = true
            last -= 1
            html = render(sections)
        }
        last = sections.count - 1
        while html.utf8.count > Self.htmlBudget, last >= 0 {
            sections[last].compactSummary = true
            last -= 1
            html = render(sections)
        }
        guard html.utf8.count <= Self.htmlBudget else {
            throw UsageError("a mail of \(sections.count) counters needs \(html.utf8.count / 1000) KB of HTML even with the shortest summaries and no tables, past the \(Self.htmlBudget / 1000) KB Gmail shows unclipped: mail fewer counters at a time (split --counter over several mails)")
        }
        return html
    }

    /// The next coarser grouping of a table over `range` that still has three rows or more (a table
    /// of one or two rows says no more than the summary above it); nil when there is none.
    static func coarser(than grouping: Grouping, range: DateRange) -> Grouping? {
        switch grouping {
        case .day: return range.periods(.week).count >= 3 ? .week : coarser(than: .week, range: range)
        case .week: return range.periods(.month).count >= 3 ? .month : nil
        case .month: return nil
        }
    }

    /// A section's table as CSV (the file attached when the HTML leaves it out): what
    /// `metrika report --group … --csv` writes for the same days.
    static func csv(_ section: Section) throws -> Data {
        let memory = OutputWriter()
        let sink = ReportCSVSink(output: memory)
        try sink.begin(layout(section, metrics: section.metrics))
        sink.beginSection(counter: section.counter, sampling: nil)
        try sink.append(section.rows)
        sink.endSection(totals: section.totals, missingDays: section.missingDays)
        sink.end()
        return Data(memory.text.utf8)
    }

    static func layout(_ section: Section, metrics: [Metric]) -> ReportLayout {
        ReportLayout(dimensions: [], metrics: metrics, period: section.current, grouping: section.grouping, multipleCounters: false, raw: false)
    }

    /// The `metrika report` command line that shows a section's table.
    /// The `metrika report` that prints a left-out table: its days and grouping, and its metrics and
    /// currency when they are not the defaults (the CSV attached holds `purchases,revenue_usd`, so
    /// must the command).
    package static func reportCommand(_ section: Section) -> String {
        var command = "metrika report --counter \(section.counter.id) --from \(section.current.from.iso) --to \(section.current.to.iso) --group \(section.grouping)"
        if section.metrics.map(\.apiName) != Metric.everyday.map(\.apiName) {
            command += " --metrics " + section.metrics.map(\.shortName).joined(separator: ",")
        }
        if let currency = section.metrics.compactMap(\.currency).first { command += " --currency \(currency.code)" }
        return command
    }

    // MARK: - Content

    package static func chartName(_ section: Section) -> String {
        "metrika-\(section.counter.id)-\(section.current.from.iso)_\(section.current.to.iso)"
    }

    /// A counter's part of the HTML, as `report --format html` builds it: the same summary, charts and
    /// table, compared with the previous window.
    package static func htmlSection(_ section: Section, metrics: [Metric]) -> HTMLReportSection {
        var report = HTMLReportSection(counter: section.counter, layout: layout(section, metrics: metrics), rows: section.rows, totals: section.totals,
                                       previous: Report.Previous(period: section.previous, values: section.previousTotals),
                                       comparisonColumns: false, missingDays: section.missingDays, dailyRows: section.dailyRows)
        report.compactSummary = section.compactSummary
        if section.tableLeftOut {
            let by = section.grouping == .day ? "day" : section.grouping == .week ? "week" : "month"
            // Short: this line is what a mail of many counters is made of.
            report.tableLeftOut = "Table by \(by) left out so that Gmail does not clip this mail: attached as \(chartName(section)).csv; \(reportCommand(section)) shows it."
        }
        return report
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
        /// The table's metrics, money in the section's currency.
        package var metrics: [Metric]
        /// How the table's rows are grouped.
        package var grouping: Grouping
        package var rows: [Report.Row]
        /// The rows by day, which the charts draw.
        package var dailyRows: [Report.Row]
        package var totals: [Quantity]
        package var previousTotals: [Quantity]
        package var missingDays: [Day]
        package var svg: Data
        /// The HTML leaves the table out (the byte budget); the CSV attachment holds it.
        package var tableLeftOut = false
        /// The HTML shows the summary as one line (the byte budget, once every table gave way).
        package var compactSummary = false
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
            sink.begin(layout(section, metrics: metrics))
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
