import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaSystem

/// `metrika mail`: the period's report table, its change against the previous period and charts
/// (PNG inline, SVG attached), as one MIME message handed to sendmail (or written to a file, or printed) — the nightly cron mail.
enum MailCommand: Command {
    static let name = "mail"
    static let summary = "Mail a report with charts (via sendmail): for cron"
    static let usage = "mail --counter ID[,ID…] --to ADDR[,ADDR…] [--sender ADDR] [--subject TEXT] [--metrics LIST] [--period 7d] [--sendmail PATH | --output FILE.eml | --dry-run]"
    static let discussion = """
    The period is the last N complete days (ending yesterday in each counter's time zone), compared
    with the N days before. The message is multipart: a plain-text part (the table and the change),
    an HTML part (the same, with the charts shown inline as PNG images, which every mail reader shows)
    and the charts attached as SVG files. The PNGs are drawn by librsvg's rsvg-convert; without it
    (or METRIKA_RSVG_CONVERT) the HTML shows the SVG charts instead, with one warning on stderr.

    Delivery: piped to `sendmail -t -i` — the program named by --sendmail, else METRIKA_SENDMAIL, else
    /usr/sbin/sendmail (any sendmail-compatible program: msmtp, ssmtp, Postfix, exim). A failing
    sendmail makes metrika fail with exit code 69 and sendmail's own message. --output FILE.eml writes
    the message to a file instead (atomically), --dry-run prints it.

    Example (crontab): 15 3 * * *  metrika sync --quiet && metrika mail --counter 1001 --to me@example.com
    """
    static let options: [OptionSpec] = [
        OptionSpec("counter", short: "c", value: "ID[,ID…]", help: "Counter id(s); repeatable"),
        OptionSpec("to", value: "ADDR[,ADDR…]", help: "Recipients: name@example.com or \"Name <name@example.com>\""),
        OptionSpec("sender", value: "ADDR", help: "From address (default: METRIKA_SENDER, else USER@host)"),
        OptionSpec("subject", value: "TEXT", help: "Subject (default: Metrika: <counters>, <period>)"),
        OptionSpec("metrics", short: "m", value: "LIST", help: "Metrics of the table and charts (default: the six everyday metrics; charts: visits)"),
        OptionSpec("period", value: "Nd|Nw", help: "The last N complete days (7d, 30d) or weeks (4w); default 7d"),
        OptionSpec("sendmail", value: "PATH", help: "The sendmail program (default METRIKA_SENDMAIL, else /usr/sbin/sendmail)"),
        OptionSpec("output", short: "o", value: "FILE.eml", help: "Write the message to a file instead of sending it"),
        OptionSpec("dry-run", help: "Print the message to standard output instead of sending it"),
        OptionSpec("offline", help: "Use the history database only: no network"),
    ] + CommonOptions.database + CommonOptions.token

    static let defaultSendmail = "/usr/sbin/sendmail"

    static func parsePeriod(_ text: String?) throws -> Int {
        guard let text else { return 7 }
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        var digits = lower
        var multiplier = 1
        if lower.hasSuffix("d") { digits = String(lower.dropLast()) }
        else if lower.hasSuffix("w") { digits = String(lower.dropLast()); multiplier = 7 }
        guard let count = Int(digits), count > 0, count <= 366 / multiplier else {
            throw UsageError("--period must be a number of days or weeks such as 7d, 30d or 4w (at most 366 days), not '\(text)'")
        }
        return count * multiplier
    }

    static func run(_ options: ParsedOptions, context: CLIContext) async throws -> Int32 {
        guard options.positionals.isEmpty else { throw UsageError("Unexpected argument '\(options.positionals[0])'") }
        let ids = try ReportCommand.parseCounterIDs(options)
        let recipientsText = options.list("to").joined(separator: ",")
        guard !recipientsText.isEmpty else { throw UsageError("Missing --to ADDR: who should get the mail") }
        let recipients = try MIMEAddress.list(parsing: (options.values["to"] ?? []).joined(separator: ","))
        let sender = try senderAddress(options, context: context)
        let days = try parsePeriod(options.value("period"))
        let chosenMetrics = try ReportCommand.parseMetrics(options)
        let tableMetrics = chosenMetrics ?? Metric.everyday
        let chartMetrics = chosenMetrics ?? [Metric.visits]
        let modes = [options.has("sendmail"), options.has("output"), options.flag("dry-run")].filter { $0 }.count
        guard modes <= 1 else { throw UsageError("Choose one of --sendmail, --output and --dry-run") }
        let sendmail = options.value("sendmail") ?? context.environment["METRIKA_SENDMAIL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSendmail
        if !options.flag("dry-run"), !options.has("output"), !FileManager.default.isExecutableFile(atPath: sendmail) {
            throw SimpleFailure("no sendmail program at \(sendmail): install one (e.g. Debian's msmtp-mta) or name it with --sendmail or METRIKA_SENDMAIL", exitCode: ExitCode.config)
        }

        let session = Session(context: context, options: options)
        let store = try HistoryStore(path: ReportCommand.databasePath(session))
        let loader = HistoryLoader(store: store, client: options.flag("offline") ? nil : try session.client(), now: context.now, unsettledDays: 2)

        var sections: [Section] = []
        for id in ids {
            let counter = try await loader.counter(id: id)
            let yesterday = MetrikaCLI.today(for: counter, now: context.now()).adding(days: -1)
            let current = DateRange(from: yesterday.adding(days: -(days - 1)), to: yesterday)!
            if current.from < DateExpression.earliestDay {
                throw UsageError("--period \(days)d reaches back to \(current.from.iso) for counter \(id), before \(DateExpression.earliestDay.iso): Metrika has no data before 2008 (is the clock or METRIKA_NOW right?)")
            }
            let previous = DateRange(from: current.from.adding(days: -days), to: current.from.adding(days: -1))!
            let loaded = try await loader.load(counter: counter, range: current, metrics: tableMetrics, grouping: .day, refresh: false)
            let built = HistoryLoader.rows(from: loaded, metrics: tableMetrics)
            let before = try await loader.load(counter: counter, range: previous, metrics: tableMetrics, grouping: nil, refresh: false)
            let previousTotals = HistoryLoader.rows(from: before, metrics: tableMetrics).totals
            let chartData = try await ChartCommand.loadSeries(loader: loader, counter: counter, range: current, metrics: chartMetrics, grouping: .day, refresh: false)
            let chart = ChartCommand.makeChart([chartData], grouping: .day, title: nil, width: 800, height: nil)
            sections.append(Section(counter: counter, current: current, previous: previous, rows: built.rows, totals: built.totals,
                                    previousTotals: previousTotals, missingDays: loaded.missingDays + before.missingDays,
                                    svg: Data(chart.render().utf8)))
        }

        let seed = UInt64.random(in: 1...UInt64.max)
        let seedTag = String(seed, radix: 16)
        let attachments = sections.map { section in
            MIMEPart.Image(data: section.svg, mediaType: "image/svg+xml", filename: "\(chartName(section)).svg")
        }
        let inline = try inlineImages(sections, seedTag: seedTag, context: context)
        let text = try plainText(sections, metrics: tableMetrics, files: attachments.map(\.filename))
        let html = htmlText(sections, metrics: tableMetrics, contentIDs: inline.map { $0.contentID ?? "" })
        let now = context.now()
        let offset = sections.first.flatMap { TimeZone(identifier: $0.counter.timeZoneName)?.secondsFromGMT(for: now) } ?? 0
        let message = MIMEMessage(
            from: sender, to: recipients, subject: options.value("subject") ?? defaultSubject(sections), date: now,
            utcOffsetSeconds: offset, seed: seed, body: MIMEPart.report(text: text, html: html, inline: inline, attachments: attachments))
        let bytes = message.bytes()

        if options.flag("dry-run") {
            try context.stdout.writer.write(contentsOf: bytes)
        } else if let output = options.value("output") {
            if output == "-" { try context.stdout.writer.write(contentsOf: bytes) } else { try AtomicFile.write(bytes, to: output) }
        } else {
            try deliver(bytes, sendmail: sendmail, environment: context.environment)
            context.note("Mailed \(recipients.map(\.address).joined(separator: ", ")): \(message.messageID)")
        }
        return ExitCode.ok
    }

    // MARK: - Content

    static func chartName(_ section: Section) -> String {
        "metrika-\(section.counter.id)-\(section.current.from.iso)_\(section.current.to.iso)"
    }

    /// The charts the HTML part shows: PNG, which every mail reader displays (Gmail and Outlook drop
    /// SVG images). Without a working rasterizer the mail still goes out, with the SVG inline and one
    /// warning line, because a cron mail without pictures beats no mail.
    static func inlineImages(_ sections: [Section], seedTag: String, context: CLIContext) throws -> [MIMEPart.Image] {
        var pngs: [Data] = []
        do {
            for section in sections { pngs.append(try context.rasterizer.png(fromSVG: section.svg, scale: ChartCommand.pngScale)) }
        } catch let error as ChartRasterizerError {
            context.note("Warning: the charts are inline as SVG, which Gmail and Outlook do not show: \(error.message)")
            pngs = []
        }
        return sections.enumerated().map { index, section in
            let contentID = "chart-\(section.counter.id).\(seedTag)@metrika"
            if index < pngs.count {
                return MIMEPart.Image(data: pngs[index], mediaType: "image/png", filename: "\(chartName(section)).png", contentID: contentID)
            }
            return MIMEPart.Image(data: section.svg, mediaType: "image/svg+xml", filename: "\(chartName(section)).svg", contentID: contentID)
        }
    }

    struct Section {
        var counter: Counter
        var current: DateRange
        var previous: DateRange
        var rows: [Report.Row]
        var totals: [Quantity]
        var previousTotals: [Quantity]
        var missingDays: [Day]
        var svg: Data
    }

    static func senderAddress(_ options: ParsedOptions, context: CLIContext) throws -> MIMEAddress {
        if let text = options.value("sender") ?? context.environment["METRIKA_SENDER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try MIMEAddress(parsing: text)
        }
        let user = context.environment["USER"] ?? context.environment["LOGNAME"] ?? "metrika"
        let host = ProcessInfo.processInfo.hostName
        if let address = try? MIMEAddress("\(user)@\(host)", displayName: "metrika") { return address }
        return try MIMEAddress("metrika@localhost.localdomain", displayName: "metrika")
    }

    static func defaultSubject(_ sections: [Section]) -> String {
        let names = sections.map { $0.counter.displayName }.joined(separator: ", ")
        guard let first = sections.first else { return "Metrika" }
        return "Metrika: \(names), \(first.current.from.iso) – \(first.current.to.iso)"
    }

    /// A total as the table shows it: exact counts, `%` with one decimal, mm:ss, two decimals.
    static func format(_ quantity: Quantity) -> String {
        guard let value = quantity.value else { return "—" }
        switch quantity.unit {
        case .count: return grouped(ChartNumber.fixed(value, decimals: 0))
        default: return ChartValueFormat.label(value, unit: quantity.unit)
        }
    }

    /// Digits in groups of three, separated by spaces like the report table: `73920` → `73 920`.
    static func grouped(_ digits: String) -> String {
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
    static func change(from before: Quantity, to now: Quantity) -> String {
        Change(from: before, to: now).text()
    }

    static func changeTable(_ section: Section, metrics: [Metric]) -> TextTable {
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

    static func plainText(_ sections: [Section], metrics: [Metric], files: [String]) throws -> String {
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

    static func htmlText(_ sections: [Section], metrics: [Metric], contentIDs: [String]) -> String {
        func e(_ text: String) -> String { XMLEscape.text(text) }
        var html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Metrika</title></head>\n<body style=\"font-family: sans-serif; color: #222;\">\n"
        let cell = " style=\"padding: 2px 8px; text-align: right;\""
        for (section, contentID) in zip(sections, contentIDs) {
            let counter = section.counter
            html += "<h2>\(e(counter.displayName)) <small>\(e(counter.site)) · \(counter.id)</small></h2>\n"
            html += "<p>\(e(section.current.from.iso)) – \(e(section.current.to.iso))</p>\n"
            // width: the chart's size on a desktop (Outlook honours only the attribute); the style
            // shrinks it to a phone's width, keeping its proportions.
            html += "<p><img src=\"cid:\(XMLEscape.attribute(contentID))\" alt=\"\(XMLEscape.attribute("Chart of " + counter.displayName))\" width=\"800\" style=\"max-width:100%;height:auto\"></p>\n"
            html += "<table style=\"border-collapse: collapse;\">\n<tr><th style=\"text-align: left;\">Date</th>"
            for metric in metrics { html += "<th\(cell)>\(e(metric.title))</th>" }
            html += "</tr>\n"
            for row in section.rows {
                html += "<tr><td>\(e(row.dimensions.first?.name ?? ""))</td>"
                for value in row.values { html += "<td\(cell)>\(e(format(value)))</td>" }
                html += "</tr>\n"
            }
            html += "<tr style=\"font-weight: bold; border-top: 1px solid #888;\"><td>Total</td>"
            for value in section.totals { html += "<td\(cell)>\(e(format(value)))</td>" }
            html += "</tr>\n</table>\n"
            html += "<h3>Change against \(e(section.previous.from.iso)) – \(e(section.previous.to.iso))</h3>\n<table style=\"border-collapse: collapse;\">\n"
            for (index, metric) in metrics.enumerated() where index < section.totals.count && index < section.previousTotals.count {
                html += "<tr><td>\(e(metric.title))</td><td\(cell)>\(e(format(section.totals[index])))</td><td\(cell)>\(e(format(section.previousTotals[index])))</td><td\(cell)>\(e(change(from: section.previousTotals[index], to: section.totals[index])))</td></tr>\n"
            }
            html += "</table>\n"
        }
        html += "<p style=\"color: #777;\">Sent by metrika \(e(MetrikaVersion.current)).</p>\n</body></html>\n"
        return html
    }

    // MARK: - Delivery

    /// Pipes the message to `sendmail -t -i` (recipients from the headers; a line with a lone dot is
    /// not the end). A sendmail that cannot start or exits non-zero is exit 69 with its own words.
    static func deliver(_ message: Data, sendmail: String, environment: [String: String], timeout: Double = sendmailTimeout) throws {
        // ChildProcess keeps metrika's token and passwords out of sendmail's environment.
        let child = ChildProcess(
            program: sendmail, arguments: ["-t", "-i"],
            environment: environment,
            timeout: timeout, maximumOutput: 64 << 10, maximumErrors: 64 << 10)
        let result: ChildProcess.Result
        do {
            result = try child.run(input: message)
        } catch {
            throw SimpleFailure("cannot start \(sendmail): \(error.reason)", exitCode: ExitCode.unavailable)
        }
        if result.timedOut {
            throw SimpleFailure("\(sendmail) did not finish within \(Int(timeout)) s and was stopped; the mail may not have been sent", exitCode: ExitCode.unavailable)
        }
        guard result.succeeded else {
            let said = ChildProcess.summary(of: result.errors + result.output)
            throw SimpleFailure("\(sendmail) failed (\(result.ending))\(said.isEmpty ? "" : ": " + said); the mail was not sent", exitCode: ExitCode.unavailable)
        }
    }

    /// Seconds sendmail may take to accept the message (msmtp talks to the SMTP server meanwhile).
    static let sendmailTimeout: Double = 300
}
