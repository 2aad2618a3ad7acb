import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases

/// `metrika mail`: the period's report table, its change against the previous period and charts
/// (PNG inline, SVG attached), as one MIME message handed to sendmail (or written to a file, or printed) — the nightly
/// cron mail.
/// The message is composed by `MailComposer`; the command parses, calls it, and delivers.
enum MailCommand: Command {
    static let name = "mail"
    static let summary = "Mail a report with charts (via sendmail): for cron"
    static let synopses: [[UsageTerm]] = [
        [
            .required(.counter),
            .group([.oneOf([[.required(.recipients), .optional(.telegram)], [.required(.telegram)]])]),
            .optional(.sender), .optional(.subject), .optional(.metrics),
            .optional([.oneOf([[.required(.last)], [.required(.period)]])]),
            .optional([.oneOf([[.required(.sendmail)], [.required(.output)], [.required(.dryRun)]])])
        ]
    ]
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

        --telegram CHAT[,CHAT…] sends the digest to Telegram too: the summary (each metric's total and
        its change) as a message and each chart as a PNG photo. Give --to ADDR and/or --telegram CHAT:
        either alone is a delivery. The bot token comes from METRIKA_TELEGRAM_TOKEN, the config file or
        the keyring entry the config names, never an argument (docs/telegram.md).

        Example (crontab): 15 3 * * *  metrika sync --quiet && metrika mail --counter 1001 --to me@example.com
        """
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(),
            Option.recipients.spec,
            Option.telegram.described(
                "Send the summary and the PNG charts to these Telegram chats (with --to or instead of it; the bot token: METRIKA_TELEGRAM_TOKEN, the config or the keyring)"
            ).spec,
            MailOptions.senderSpec,
            Option.subject.spec,
            MetricsOptions.spec(
                help:
                    "Metrics of the table and charts (default: the six everyday metrics; charts: visits), e.g. visits,purchases,revenue"
            ),
            MoneyOptions.currencySpec,
            Option.last.spec,
            Option.period.described(
                "A named period of finished days instead of --last: yesterday, lastWeek, lastMonth, lastYear",
                choices: NamedPeriod.finished.map(\.description)
            ).spec,
            MailOptions.sendmailSpec,
            Option.output.described("Write the message to a file instead of sending it", value: "FILE.eml").spec,
            Option.dryRun.described("Print the message to standard output instead of sending it").spec,
            HistoryOptions.offlineSpec
        ] + DatabaseOptions.specs + TokenOptions.specs

    /// `--last 7d|30d|4w`: a number of days (at most 366); `option` names the option in errors.
    static func parseLength(_ text: String?, option: String = "last") throws -> Int {
        guard let text else { return 7 }
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        var digits = lower
        var multiplier = 1
        if lower.hasSuffix("d") {
            digits = String(lower.dropLast())
        } else if lower.hasSuffix("w") {
            digits = String(lower.dropLast())
            multiplier = 7
        }
        guard let count = Int(digits), count > 0, count <= 366 / multiplier else {
            throw UsageError(
                "--\(option) must be a number of days or weeks such as 7d, 30d or 4w (at most 366 days), not '\(text)'")
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
        guard let text = options[.period] else { return .last(days: try parseLength(options[.last])) }
        if options.contains(.last) {
            throw UsageError("--period and --last contradict each other: give a named period or a length, not both")
        }
        if isLength(text) {
            let days = try parseLength(text, option: "period")
            let spelled = text.trimmingCharacters(in: .whitespaces)
            note("Warning: --period \(spelled) is deprecated: use --last \(spelled)")
            return .last(days: days)
        }
        let period = try cliWorded { try NamedPeriod(parsing: text) }
        // A mail reports finished days: a period that runs to today would compare a day still coming
        // in with a whole one (`report --period` keeps its meaning; the mail refuses, and says instead).
        if period.endsToday {
            let instead: String
            if case .lastDays(let days) = period, days <= 366 {
                instead = "use --last \(days)d for the \(days) days to yesterday"
            } else {
                instead =
                    "use --last Nd (the N days to yesterday) or --period yesterday, lastWeek, lastMonth or lastYear"
            }
            throw UsageError(
                "--period \(period) runs to today, whose numbers are still coming in, and a mail covers finished days: \(instead)"
            )
        }
        return .period(period)
    }

    /// Where the composed message goes.
    enum Destination: Equatable {
        /// Piped to this sendmail program.
        case sendmail(String)
        /// Written (atomically) to this file.
        case file(String)
        /// `--dry-run`, `--output -`.
        case standardOutput
        /// `--telegram` without `--to`: no mail.
        case none
    }

    /// A mail as the command line asks for it, validated before any request.
    struct Request {
        var mail: MailComposer.Request
        /// `--offline`: from the history alone.
        var offline: Bool
        var destination: Destination
        /// `--telegram`: the chats the digest also goes to.
        var telegram: String?
    }

    /// The mail the options ask for; `note` gets the deprecation line of `--period 7d`. A sendmail
    /// that is not there is refused here (exit 78), before the mail is composed.
    static func parse(_ options: ParsedOptions, context: CLIContext) throws -> Request {
        try options.requireNoPositionals()
        let ids = try CounterOptions.ids(options)
        let telegram = options[.telegram]
        guard !options[.recipients].isEmpty || telegram != nil else {
            throw UsageError(
                "Missing --to ADDR and/or --telegram CHAT: who should get the mail (its digest, in Telegram)")
        }
        // As given, not split at commas: a display name may hold one inside quotes.
        let recipients =
            options[.recipients].isEmpty
            ? [] : try MIMEAddress.list(parsing: options.asGiven(.recipients).joined(separator: ","))
        let sender = try MailOptions.senderAddress(options, context: context)
        let window = try window(options, note: context.note)
        let metrics = try MetricsOptions.metrics(options)
        let currency = try MoneyOptions.currency(options)
        try MoneyOptions.refuseCurrencyWithoutMoney(currency, metrics: DefaultMetrics.table(chosen: metrics))
        let modes = [options.contains(.sendmail), options.contains(.output), options[.dryRun]].filter { $0 }.count
        guard modes <= 1 else { throw UsageError("Choose one of --sendmail, --output and --dry-run") }
        let destination: Destination
        if recipients.isEmpty {
            guard modes == 0 else { throw UsageError("--sendmail, --output and --dry-run go with --to ADDR") }
            destination = .none
        } else if options[.dryRun] {
            destination = .standardOutput
        } else if let output = options[.output] {
            destination = output == "-" ? .standardOutput : .file(output)
        } else {
            let sendmail = MailOptions.sendmailPath(options, environment: context.environment)
            try MailOptions.checkSendmail(sendmail)
            destination = .sendmail(sendmail)
        }
        let history = try HistoryOptions.parse(options)
        let mail = MailComposer.Request(
            counterIDs: ids, window: window, metrics: metrics, sender: sender, recipients: recipients,
            subject: options[.subject], currency: currency)
        return Request(mail: mail, offline: history.offline, destination: destination, telegram: telegram)
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        let request = try parse(options, context: context)
        // The chats and the bot (its token found and checked) before anything is fetched.
        let chats = try request.telegram.map { try session.telegramChats(given: $0) } ?? []
        let bot = chats.isEmpty ? nil : try await session.services.telegramBot()
        let composer = MailComposer(
            loader: try await session.services.historyLoader(offline: request.offline), rasterizer: context.rasterizer,
            activity: context)
        // A chat that failed is said already (the mail, if any, still goes): the run's status.
        var failed: Int32?
        if let bot {
            let stop = DeliveryStop()
            let unwatch = SignalTrap.Requests().watch { stop.request($0) }
            let report: OutboxDelivery.Report
            do {
                defer { unwatch() }
                report = try await TelegramDigest.send(
                    request.mail, composer: composer, bot: bot, chats: chats, stop: stop,
                    showsProgress: context.stderrIsTerminal)
            }
            if let signal = report.stoppedBy {
                throw Interruption(signal: signal, account: AlertRun.stoppedAccount(report))
            }
            if let failure = report.failure {
                failed = failure.exitCode
            } else if context.stderrIsTerminal || options[.verbose] {
                context.note("Sent the digest to Telegram chat(s) \(chats.map(\.value).joined(separator: ", ")).")
            }
        }
        if request.destination == .none { return failed ?? ExitCode.ok }
        let message = try await composer.compose(request.mail)
        let bytes = message.bytes()
        switch request.destination {
        case .none:
            break
        case .standardOutput:
            try context.stdout.writer.write(contentsOf: bytes)
        case .file(let path):
            try AtomicFile.write(bytes, to: path)
        case .sendmail(let sendmail):
            try await Sendmail(path: sendmail).deliver(bytes, environment: context.environment)
            // Success is quiet where no one watches: cron mails whatever lands on stderr.
            if context.stderrIsTerminal || options[.verbose] {
                context.note(
                    "Mailed \(request.mail.recipients.map(\.address).joined(separator: ", ")): \(message.messageID)")
            }
        }
        return failed ?? ExitCode.ok
    }
}

// MARK: - Options of its own

extension Option where Value == [String] {
    /// `--to ADDR[,ADDR…]` of mail: the recipients (not `--to DATE` of dates).
    static var recipients: Option<[String]> {
        .words("to", value: "ADDR[,ADDR…]", help: "Recipients: name@example.com or \"Name <name@example.com>\"")
    }
}

extension Option where Value == String? {
    /// `--subject TEXT` of a mail.
    static var subject: Option<String?> {
        .text("subject", value: "TEXT", help: "Subject (default: Metrika: <counters>, <period>)")
    }
    /// `--last Nd|Nw`: the mail's length, as written (`MailCommand.parseLength` reads it).
    static var last: Option<String?> {
        .text("last", value: "Nd|Nw", help: "The last N complete days (7d, 30d) or weeks (4w); default 7d")
    }
}

extension Option where Value == Bool {
    /// `--dry-run`: show, send nothing (mail, alert).
    static var dryRun: Option<Bool> { .flag("dry-run", help: "Show what would be sent; send nothing") }
}
