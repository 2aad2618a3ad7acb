import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

/// `metrika mail`: the period's report table, its change against the previous period and charts
/// (PNG inline, SVG attached), as one MIME message handed to sendmail (or written to a file, or printed) — the nightly cron mail.
/// The message is composed by `MailComposer`; the command parses, calls it, and delivers.
enum MailCommand: Command {
    static let name = "mail"
    static let summary = "Mail a report with charts (via sendmail): for cron"
    static let synopses: [[UsageTerm]] = [[.option("counter"), .option("to"), .optional([.option("sender")]), .optional([.option("subject")]), .optional([.option("metrics")]), .optional([.oneOf([[.option("last")], [.option("period")]])]), .optional([.oneOf([[.option("sendmail")], [.option("output")], [.option("dry-run")]])])]]
    static let discussion = """
    The mail covers the last N complete days (--last, default 7d: ending yesterday in each counter's
    time zone) or a named period of finished days (--period yesterday, lastWeek, lastMonth, lastYear;
    the names of `metrika report` that run to today are refused: a mail covers finished days),
    compared with the days of the same length just before. The old spelling --period 7d still works,
    with a one-line deprecation warning: use --last 7d.

    The message is multipart: a plain-text part (the table and the change), an HTML part and the
    charts attached as SVG files. The HTML part is the page of `report --format html`, made for a
    phone first: each metric's total and its change against the previous period at the top, a chart
    per chart metric drawn for a 360 px column (inline PNG at 2×, alt text such as "Visits fell 12.0%
    to 3 085"), then the table in blocks of three metrics that sit side by side on a desktop and stack
    on a phone; inline styles only, no script. The PNGs are drawn by librsvg's rsvg-convert; without
    it (or METRIKA_RSVG_CONVERT) the HTML shows the SVG charts instead, with one warning on stderr.

    The table (HTML and text) has a row per day for windows up to 35 days, per week (Monday to
    Sunday, the first and last cut to the window) up to 182 days, per calendar month beyond: the
    rows of `metrika report --group week|month` for the same days. The charts stay daily.
    The HTML part is kept under 100 000 bytes, below the ~102 KB past which Gmail clips a message:
    when it would be larger, the tables become one grouping coarser (while they keep three rows),
    then the last counters' tables give way, each replaced by a line naming the CSV file attached
    in its place and the `metrika report` that shows it, then the last counters' summaries become
    one line each; every counter keeps its summary and chart.
    A mail that would not fit even so (dozens of counters) is not sent: exit 64, mail fewer
    counters at a time (docs/cron.md).

    Delivery: piped to `sendmail -t -i` — the program named by --sendmail, else METRIKA_SENDMAIL, else
    /usr/sbin/sendmail (any sendmail-compatible program: msmtp, ssmtp, Postfix, exim). A failing
    sendmail makes metrika fail with exit code 69 and sendmail's own message. --output FILE.eml writes
    the message to a file instead (atomically), --dry-run prints it.

    Example (crontab): 15 3 * * *  metrika sync --quiet && metrika mail --counter 1001 --to me@example.com
    """
    static let options: [OptionSpec] = [
        CounterOptions.spec(),
        OptionSpec("to", value: "ADDR[,ADDR…]", help: "Recipients: name@example.com or \"Name <name@example.com>\""),
        MailDelivery.senderSpec,
        OptionSpec("subject", value: "TEXT", help: "Subject (default: Metrika: <counters>, <period>)"),
        MetricsOptions.spec(help: "Metrics of the table and charts (default: the six everyday metrics; charts: visits), e.g. visits,purchases,revenue"),
        MoneyOptions.currencySpec,
        OptionSpec("last", value: "Nd|Nw", help: "The last N complete days (7d, 30d) or weeks (4w); default 7d"),
        OptionSpec("period", value: "NAME", help: "A named period of finished days instead of --last: yesterday, lastWeek, lastMonth, lastYear",
                   choices: NamedPeriod.finished.map(\.description)),
        MailDelivery.sendmailSpec,
        OptionSpec("output", short: "o", value: "FILE.eml", help: "Write the message to a file instead of sending it"),
        OptionSpec("dry-run", help: "Print the message to standard output instead of sending it"),
        HistoryOptions.offlineSpec,
    ] + DatabaseOptions.specs + TokenOptions.specs

    /// `--last 7d|30d|4w`: a number of days (at most 366); `option` names the option in errors.
    static func parseLength(_ text: String?, option: String = "last") throws -> Int {
        guard let text else { return 7 }
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        var digits = lower
        var multiplier = 1
        if lower.hasSuffix("d") { digits = String(lower.dropLast()) }
        else if lower.hasSuffix("w") { digits = String(lower.dropLast()); multiplier = 7 }
        guard let count = Int(digits), count > 0, count <= 366 / multiplier else {
            throw UsageError("--\(option) must be a number of days or weeks such as 7d, 30d or 4w (at most 366 days), not '\(text)'")
        }
        return count * multiplier
    }

    /// Whether a `--period` value is the old spelling of a length (`7d`, `4w`) rather than a name.
    static func isLength(_ text: String) -> Bool {
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        guard let unit = lower.last, unit == "d" || unit == "w" else { return false }
        let digits = lower.dropLast()
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `--last`, or `--period NAME`, or the old `--period 7d` (a length, with a deprecation note); not both.
    static func window(_ options: ParsedOptions, note: (String) -> Void) throws -> MailComposer.Window {
        guard let text = options.value("period") else { return .last(days: try parseLength(options.value("last"))) }
        if options.has("last") { throw UsageError("--period and --last contradict each other: give a named period or a length, not both") }
        if isLength(text) {
            let days = try parseLength(text, option: "period")
            let spelled = text.trimmingCharacters(in: .whitespaces)
            note("Warning: --period \(spelled) is deprecated: use --last \(spelled)")
            return .last(days: days)
        }
        let period = try NamedPeriod(parsing: text)
        // A mail reports finished days: a period that runs to today would compare a day still coming
        // in with a whole one (`report --period` keeps its meaning; the mail refuses, and says instead).
        if period.endsToday {
            let instead: String
            if case .lastDays(let days) = period, days <= 366 {
                instead = "use --last \(days)d for the \(days) days to yesterday"
            } else {
                instead = "use --last Nd (the N days to yesterday) or --period yesterday, lastWeek, lastMonth or lastYear"
            }
            throw UsageError("--period \(period) runs to today, whose numbers are still coming in, and a mail covers finished days: \(instead)")
        }
        return .period(period)
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let ids = try CounterOptions.ids(options)
        let recipientsText = options.list("to").joined(separator: ",")
        guard !recipientsText.isEmpty else { throw UsageError("Missing --to ADDR: who should get the mail") }
        let recipients = try MIMEAddress.list(parsing: (options.values["to"] ?? []).joined(separator: ","))
        let sender = try MailDelivery.senderAddress(options, context: context)
        let window = try window(options, note: context.note)
        let metrics = try MetricsOptions.metrics(options)
        let currency = try MoneyOptions.currency(options)
        try MoneyOptions.refuseCurrencyWithoutMoney(currency, metrics: DefaultMetrics.table(chosen: metrics))
        let modes = [options.has("sendmail"), options.has("output"), options.flag("dry-run")].filter { $0 }.count
        guard modes <= 1 else { throw UsageError("Choose one of --sendmail, --output and --dry-run") }
        let sendmail = MailDelivery.sendmailPath(options, environment: context.environment)
        if !options.flag("dry-run"), !options.has("output") { try MailDelivery.checkSendmail(sendmail) }

        let history = try HistoryOptions.parse(options)
        let composer = MailComposer(loader: try session.historyLoader(offline: history.offline), rasterizer: context.rasterizer, activity: context)
        let request = MailComposer.Request(counterIDs: ids, window: window, metrics: metrics, sender: sender, recipients: recipients, subject: options.value("subject"), currency: currency)
        let message = try await composer.compose(request)
        let bytes = message.bytes()

        if options.flag("dry-run") {
            try context.stdout.writer.write(contentsOf: bytes)
        } else if let output = options.value("output") {
            if output == "-" { try context.stdout.writer.write(contentsOf: bytes) } else { try AtomicFile.write(bytes, to: output) }
        } else {
            try MailDelivery.deliver(bytes, sendmail: sendmail, environment: context.environment)
            // Success is quiet where no one watches: cron mails whatever lands on stderr.
            if context.stderrIsTerminal || options.flag("verbose") { context.note("Mailed \(recipients.map(\.address).joined(separator: ", ")): \(message.messageID)") }
        }
        return ExitCode.ok
    }
}
