import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem

/// Composing the mail of `metrika mail`: gathers each counter's table over the window, its change
/// against the window of the same length before and its chart (PNG inline, SVG attached), fits the
/// HTML part to Gmail's budget, and hands the rendering to `MailReport` (MetrikaRender); the result is
/// one MIME message. Delivering it (sendmail, a file, stdout) is the command's.
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

        package init(
            counterIDs: [Int], window: Window, metrics: [Metric]?, sender: MIMEAddress, recipients: [MIMEAddress],
            subject: String?, currency: Currency? = nil
        ) {
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

    /// A counter's part of the mail, as rendered by `MailReport`.
    package typealias Section = MailReport.Section

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
        let parameter: Parameter
        let value: String
        switch window {
        case .last(let days):
            let yesterday = today.adding(days: -1)
            range = DateRange(from: yesterday.adding(days: -(days - 1)), to: yesterday)!
            (parameter, value) = (.last, "\(days)d")
        case .period(let period):
            let days = period.days(today: today)
            range = DateRange(from: days.from, to: days.to)!
            (parameter, value) = (.period, "\(period)")
        }
        if DateExpression.isBeforeMetrika(range.from) {
            throw ParameterError(parameter, .badDay(value: value)) {
                "\($0[parameter]) \(value) reaches back to \(range.from.iso) for counter \(counterID), before \(DateExpression.earliestDay.iso): Metrika has no data before 2008 (\($0.action(.checkClock)))"
            }
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
            let tableMetrics = try await loader.inCurrency(
                request.tableMetrics, counter: counter, requested: request.currency)
            let chartMetrics = try await loader.inCurrency(
                request.chartMetrics, counter: counter, requested: request.currency)
            let current = try Self.current(
                request.window, today: today(for: counter, now: activity.now()), counterID: id)
            let previous = Comparison.previousRange(of: current)
            let grouping = Self.tableGrouping(days: current.dayCount)
            let loaded = try await loader.load(
                counter: counter, range: current, metrics: tableMetrics, grouping: grouping, refresh: false)
            let built = HistoryLoader.rows(from: loaded, metrics: tableMetrics)
            let before = try await loader.load(
                counter: counter, range: previous, metrics: tableMetrics, grouping: nil, refresh: false)
            let previousTotals = HistoryLoader.rows(from: before, metrics: tableMetrics).totals
            let chartData = try await ChartSeries.loadSeries(
                loader: loader, counter: counter, range: current, metrics: chartMetrics, grouping: .day, refresh: false)
            var chart = ChartSeries.makeChart([chartData], grouping: .day, title: nil, width: 800, height: nil)
            chart.marks = await ChartSeries.marks(for: [chartData], loader: loader, activity: activity)
            var section =
                Section(
                    counter: counter, current: current, previous: previous, metrics: tableMetrics, grouping: grouping,
                    rows: built.rows, dailyRows: Self.dailyRows(loaded, metrics: tableMetrics), totals: built.totals,
                    previousTotals: previousTotals, missingDays: loaded.missingDays + before.missingDays,
                    svg: Data(chart.render().utf8))
            section.marks = chart.marks
            sections.append(section)
        }
        return sections
    }

    /// A section's compact charts (the inline PNGs), its annotated days marked as on the attached SVG.
    package static func lineCharts(_ section: Section, metrics request: Request) -> [CompactLineChart] {
        MailReport.htmlSection(section, metrics: request.tableMetrics).lineCharts(metrics: request.chartMetrics).map {
            var chart = $0
            chart.marks = section.marks
            return chart
        }
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
        let loaded = try await loader.load(
            counter: section.counter, range: section.current, metrics: section.metrics, grouping: grouping,
            refresh: false)
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
        let charts = sections.map { Self.lineCharts($0, metrics: request) }
        let inline = try await Self.inlineImages(
            sections, charts: charts, seedTag: seedTag, rasterizer: rasterizer, activity: activity)
        let html = try await fitted(&sections, metrics: request.tableMetrics, charts: charts, images: inline)
        var attachments = sections.map { section in
            MIMEPart.Image(
                data: section.svg, mediaType: "image/svg+xml", filename: "\(MailReport.chartName(section)).svg")
        }
        let text = try MailReport.plainText(
            sections, metrics: request.tableMetrics, files: attachments.map(\.filename), naming: activity.naming)
        for section in sections where section.tableLeftOut {
            attachments.append(
                MIMEPart.Image(
                    data: try MailReport.csv(section), mediaType: "text/csv",
                    filename: "\(MailReport.chartName(section)).csv"))
        }
        let now = activity.now()
        let offset =
            sections.first.flatMap { TimeZone(identifier: $0.counter.timeZoneName)?.secondsFromGMT(for: now) } ?? 0
        return MIMEMessage(
            from: request.sender, to: request.recipients,
            subject: request.subject ?? MailReport.defaultSubject(sections), date: now,
            utcOffsetSeconds: offset, seed: seed,
            body: MIMEPart.report(text: text, html: html, inline: inline, attachments: attachments))
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
    func fitted(_ sections: inout [Section], metrics: [Metric], charts: [[CompactLineChart]], images: [MIMEPart.Image])
        async throws -> String
    {
        func render(_ sections: [Section]) -> String {
            MailReport.htmlText(
                sections.map { MailReport.htmlSection($0, metrics: metrics, naming: activity.naming) }, charts: charts,
                images: images)
        }
        var html = render(sections)
        while html.utf8.count > Self.htmlBudget, let first = sections.first,
            let coarser = Self.coarser(than: first.grouping, range: first.current)
        {
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
            let sentence =
                "a mail of \(sections.count) counters needs \(html.utf8.count / 1000) KB of HTML even with the shortest summaries and no tables, past the \(Self.htmlBudget / 1000) KB Gmail shows unclipped"
            throw ParameterError(.counter, .tooMany(count: sections.count, most: sections.count - 1)) {
                "\(sentence): mail fewer counters at a time (split \($0[.counter]) over several mails)"
            }
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

    /// The charts the HTML part shows, one per chart metric and counter, in order: PNG at 2×, which
    /// every mail reader displays (Gmail and Outlook drop SVG images). Without a working rasterizer
    /// the mail still goes out, with the SVGs inline and one warning line, because a cron mail without
    /// pictures beats no mail.
    package static func inlineImages(
        _ sections: [Section], charts: [[CompactLineChart]], seedTag: String, rasterizer: any ChartRasterizer,
        activity: any Activity
    ) async throws -> [MIMEPart.Image] {
        let documents = charts.map { $0.map { Data($0.document().utf8) } }
        var pngs: [[Data]]? = []
        do {
            for section in documents {
                var drawn: [Data] = []
                for svg in section { drawn.append(try await rasterizer.png(fromSVG: svg, scale: ChartSeries.pngScale)) }
                pngs?.append(drawn)
            }
        } catch let error as ChartRasterizerError {
            activity.note(
                "Warning: the charts are inline as SVG, which Gmail and Outlook do not show: \(error.message(activity.naming))"
            )
            pngs = nil
        }
        var images: [MIMEPart.Image] = []
        for (index, section) in sections.enumerated() {
            for (number, chart) in charts[index].enumerated() {
                let name = "\(MailReport.chartName(section))-\(chart.series.metric.columnName)"
                let contentID = "chart-\(section.counter.id)-\(number + 1).\(seedTag)@metrika"
                if let png = pngs?[index][number] {
                    images.append(
                        MIMEPart.Image(data: png, mediaType: "image/png", filename: name + ".png", contentID: contentID)
                    )
                } else {
                    images.append(
                        MIMEPart.Image(
                            data: documents[index][number], mediaType: "image/svg+xml", filename: name + ".svg",
                            contentID: contentID))
                }
            }
        }
        return images
    }
}
