import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases

/// `metrika alert`: yesterday's visits and every goal's reaches against the same weekday of earlier
/// weeks; one stdout line per anomaly (nothing when all is well), optionally a webhook POST and a
/// mail; each anomaly told once. The work is `AlertCheck`'s; this parses, delivers and remembers.
enum AlertCommand: Command {
    static let name = "alert"
    static let summary =
        "Alert on yesterday's visits, goals and sales unlike the same weekday of earlier weeks; for cron"
    static let synopses: [[UsageTerm]] = [
        [
            .optional(.counter), .optional(.today), .optional(.webhook), .optional(.alertMail), .optional(.telegram),
            .optional(.currency), .optional(.dryRun)
        ],
        [.required(Option.alertStatus), .optional(Option.json)],
        [.required(Option.alertTest), .optional(.telegram), .optional(.webhook), .optional(.alertMail)],
        [.required(Option.forget)]
    ]
    static let discussion = """
        Checks the last finished day in each counter's time zone: visits, the reaches of every goal and,
        for a shop, purchases and revenue (in --currency, else the counter's own), each against the
        median of the same weekday over the previous 6 weeks (at least 4 with history).
        A change is an alert only when it is large both relatively (at least 40 %: x0.6 or x1.67) and
        statistically (a goal reached 2 times a day that reaches 0 is noise; 25 a day that reaches 0 is
        not). Kinds: drop, rise, stopped (zero where there never is: the tracking code or the goal is
        broken; the line says since when). A metric that had stopped and comes back is told once more.

        Without --counter: the default counter(s) (METRIKA_COUNTER, the profile, the config file), else
        every counter the token can read. The history database is read and only what it lacks is
        fetched (like `metrika sync`); --offline fetches nothing.

        Standard output: one line per alert starting with the counter id, e.g.
          515151 Сезонный магазин: visits 200 on Sun 2026-11-29, expected ~600 (-67%), mostly Search engine traffic -336
        nothing when all is well; exit 0 either way (an alert is not an error). A drop or a rise ends
        with its main driver, as `metrika explain` finds it (one request per dimension and counter
        alerted; left out when it cannot be fetched, with a note under --verbose).

        Each alert is told once, even by runs that overlap: the history database remembers it, and
        later runs that see the same anomaly are silent. --webhook URL (or METRIKA_WEBHOOK_URL) POSTs
        one JSON body per run that found something ("text" and "alerts": docs/alerts.md); the URL holds
        a secret and is only ever shown as https://host/…. --mail ADDR sends the alerts with a chart of
        each metric's last five weeks through sendmail (as `metrika mail` does). When a delivery fails
        (exit 69) its message is kept, and a later run delivers it. --telegram CHAT[,CHAT…] (or
        METRIKA_TELEGRAM_CHAT) sends one Telegram message per run with the lines and, for the daily
        check, each alerted metric's chart as a photo; the bot token comes from METRIKA_TELEGRAM_TOKEN,
        the config file or the keyring, never an argument (docs/telegram.md). --dry-run prints the
        lines and sends and remembers nothing.

        --today judges the last finished hours instead, for an hourly cron: visits and every goal's
        reaches hour by hour, the last 3 finished hours together (near midnight, yesterday's last
        hours with today's) against the same hours of the same weekday of the previous 4 weeks
        (their median); stopped when they are 0 for 2 hours or more where those weeks always had
        some ("visits stopped at 14:00"). The running hour is never judged
        (its numbers are still coming in). One request per counter and run; the earlier weeks' hours
        are kept in the history database. Told once as well, with "back to normal at 17:00".

        Under cron (stderr no terminal, no --verbose) each failure of the check is said once: a failure
        of one run prints nothing, one of several runs one line at its second, then nothing (the exit
        code stays non-zero), and "Back: …" once when it works again (docs/alerts.md).

        Every message to every channel and recipient is written to the history database first and
        marked delivered once the channel took it: a run killed before that leaves it to the next run,
        which sends it first (at least once). A chat not found or a bot blocked is said once and given
        up; a failure that may pass is tried again by later runs for 48 hours; --status ends with what
        is not yet delivered. SIGTERM finishes the message in flight and keeps the rest (docs/alerts.md).

        --test sends one sample alert through each channel named (--telegram CHAT…, --webhook URL,
        --mail ADDR…), else each one configured (METRIKA_TELEGRAM_CHAT, METRIKA_WEBHOOK_URL, the config
        file), and prints one line per channel and recipient: delivered, or why not. Exit 0 only when
        every one was delivered. Nothing is checked or remembered.

        Thresholds, metrics and counters to skip: the "alerts" member of the config file (docs/alerts.md).

        --status lists the open alerts: each one told and still so, with its id, since when, the last
        value against the expected one and when it was told (--json: as JSON); "No open alerts." when
        there are none. --forget ID closes one (--forget all: every one): the next run tells it again if
        it is still so. Both read only the history database: no request, no token.

        Example (crontab): 0 7 * * *  metrika alert --mail me@example.com > /dev/null
        (stdout to /dev/null: the mail has the lines already; errors on stderr still reach cron's mail)
        Hourly (crontab): 5 * * * *  metrika alert --today --webhook "$SLACK_URL" > /dev/null
        """
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(
                help: "Only these counters (default: the default counter(s), else every counter you can read)"),
            Option.today.spec,
            Option.webhook.spec, Option.alertMail.spec, Option.telegram.spec,
            MailOptions.senderSpec,
            MailOptions.sendmailSpec,
            Option.dryRun.described("Print the alerts only: no webhook, no mail, no Telegram, nothing remembered").spec,
            Option.currency.described("A shop's revenue in this currency (default: the counter's own, as the API says)")
                .spec,
            HistoryOptions.offlineSpec,
            Option.alertStatus.spec, Option.json.described("With --status: the open alerts as JSON").spec,
            Option.alertTest.spec,
            Option.forget.spec
        ] + DatabaseOptions.specs + TokenOptions.specs

    /// An alert check as the command line asks for it, validated before any request (the config
    /// file's `"alerts"` and the webhook are the session's: `run` adds them).
    struct Request {
        /// `--counter`: these counters only; empty: every counter (or the default ones).
        var counterIDs: [Int]
        var dryRun: Bool
        var offline: Bool
        /// `--today`: the last finished hours (the hour grain, across midnight) instead of yesterday.
        var today: Bool
        var currency: Currency?
        /// `--mail`: empty when the alerts are not mailed.
        var recipients: [MIMEAddress]
        /// The From address when mailing.
        var sender: MIMEAddress?
        var sendmail: String
    }

    static func parse(_ options: ParsedOptions, context: CLIContext) throws -> Request {
        // A webhook URL that landed among the positionals (`--mail --webhook URL` with the address
        // forgotten) is still a secret: known before the error that quotes it.
        for argument in options.positionals where argument.contains("://") { context.secrets.add(argument) }
        // So is --webhook's, before any error of the options read next (`webhook` adds its parts).
        if let text = options[.webhook], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            context.secrets.add(text)
        }
        try options.requireNoPositionals()
        if options[.json] { throw UsageError("--json goes with --status: metrika alert --status --json") }
        let ids = options.contains(.counter) ? try CounterOptions.ids(options) : []
        let recipientsText = options[.alertMail].joined(separator: ",")
        if options.contains(.alertMail), recipientsText.trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageError("--mail needs an address: --mail me@example.com")
        }
        let recipients = recipientsText.isEmpty ? [] : try MIMEAddress.list(parsing: recipientsText)
        if !recipients.isEmpty || options.contains(.sender) || options.contains(.sendmail) {
            guard !recipients.isEmpty else { throw UsageError("--sender and --sendmail go with --mail ADDR") }
        }
        return Request(
            counterIDs: ids, dryRun: options[.dryRun], offline: options[.offline], today: options[.today],
            currency: try MoneyOptions.currency(options), recipients: recipients,
            sender: recipients.isEmpty ? nil : try MailOptions.senderAddress(options, context: context),
            sendmail: MailOptions.sendmailPath(options, environment: context.environment))
    }

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        if managesEpisodes(options) { return try await runEpisodes(options, session: session) }
        let context = session.context
        let request = try parse(options, context: context)
        if options[.alertTest] { return try await runTest(options, request: request, session: session) }
        let settings = try AlertRun.settings(from: try session.services.configFile()?.alerts)
        // Why a named counter was not judged is a note, not an error: said on a terminal or with
        // --verbose, never to cron (whose stderr is no terminal, and mailed).
        var runRequest = AlertRun.Request(
            counterIDs: request.counterIDs, today: request.today, dryRun: request.dryRun, currency: request.currency,
            explain: options[.verbose] || (!request.counterIDs.isEmpty && context.stderrIsTerminal))
        // The check's failures are said after the run, once per failure under cron (`FailureMemory`).
        runRequest.noteFailures = request.dryRun
        // Refused before the webhook is read or sendmail looked for.
        do {
            try AlertRun.validate(runRequest, settings: settings)
        } catch let error as AlertRunError {
            throw usageError(error)
        }
        let webhook = try webhook(options, session: session)
        if !request.recipients.isEmpty, !request.dryRun { try MailOptions.checkSendmail(request.sendmail) }
        let chats = try session.telegramChats(given: options[.telegram])
        // The bot is made (its token found and checked) before anything is checked or claimed.
        let bot = chats.isEmpty || request.dryRun ? nil : try await session.services.telegramBot()
        let announce = context.stderrIsTerminal || options[.verbose]
        var deliverers: [any AlertDeliverer] = []
        if let webhook { deliverers.append(WebhookDeliverer(webhook)) }
        if let bot { deliverers.append(session.services.telegramDeliverer(bot: bot, chats: chats)) }
        if let sender = request.sender, !request.recipients.isEmpty {
            deliverers.append(
                session.services.mailDeliverer(
                    sender: sender, recipients: request.recipients, sendmail: request.sendmail, hiding: webhook))
        }
        let loader = try await session.services.historyLoader(offline: request.offline)
        var run = AlertRun(loader: loader, settings: settings, activity: context)
        run.announce = announce
        run.stopRequests = SignalTrap.Requests()
        let memory = FailureMemory(
            store: loader.store, job: FailureMemory.alertJob(today: request.today, counterIDs: request.counterIDs),
            interactive: context.stderrIsTerminal || options[.verbose], naming: context.naming, now: context.now)
        let result: AlertRun.Result
        do {
            result = try await run.run(runRequest, deliverers: deliverers) { lines in
                for line in lines { context.stdout.write(line + "\n") }
                try context.stdout.flushChecked()
            }
        } catch let error as AlertRunError {
            throw usageError(error)
        } catch let failure as any MetrikaFailure
            where !request.dryRun && (failure is APIError || failure is AlertCheckError || failure is AuthError)
        {
            // The whole check failed (the API gone, the quota spent, the token refused).
            return try await memory.runFailed(failure)
        }
        if request.today, options[.verbose] {
            context.note(
                "Hourly check: \(result.countersChecked) \(result.countersChecked == 1 ? "counter" : "counters"), \(result.requests) report requests\(result.driverRequests > 0 ? ", \(result.driverRequests) for the drivers" : "")."
            )
        }
        if !request.dryRun {
            // An API that went away mid-run: one line saying which counters were checked and which were not.
            if let gaveUp = result.gaveUp { return try await memory.runFailed(gaveUp) }
            try await memory.ran(failures: result.failures, note: context.note)
        }
        if let gaveUp = result.gaveUp { throw gaveUp }
        if let failure = result.deliveryFailure { return failure.exitCode }
        // Counters the quota ledger put off are left for the next run (said in one note), not failed.
        return result.failures.first { !AlertRun.isPutOff($0.failure) }?.failure.exitCode ?? ExitCode.ok
    }

    /// `--test`: one sample alert through each channel named, else each configured; a line per
    /// channel and recipient on stdout.
    static func runTest(_ options: ParsedOptions, request: Request, session: Session) async throws -> Int32 {
        let context = session.context
        let checkOnly: [(String, Bool)] = [
            ("--counter", options.contains(.counter)), ("--today", options[.today]), ("--dry-run", options[.dryRun]),
            ("--currency", options.contains(.currency)), ("--offline", options[.offline])
        ]
        if let (name, _) = checkOnly.first(where: { $0.1 }) {
            throw UsageError("\(name) goes with a check, not with --test, which only sends a sample alert")
        }
        let named = options.contains(.telegram) || options.contains(.webhook) || !request.recipients.isEmpty
        let webhook = named && !options.contains(.webhook) ? nil : try webhook(options, session: session)
        let chats =
            named && !options.contains(.telegram)
            ? [] : try session.telegramChats(given: options[.telegram])
        var deliverers: [any AlertDeliverer] = []
        if let webhook { deliverers.append(WebhookDeliverer(webhook)) }
        if !chats.isEmpty {
            let bot = try await session.services.telegramBot()
            deliverers.append(session.services.telegramDeliverer(bot: bot, chats: chats))
        }
        if let sender = request.sender, !request.recipients.isEmpty {
            try MailOptions.checkSendmail(request.sendmail)
            deliverers.append(
                session.services.mailDeliverer(
                    sender: sender, recipients: request.recipients, sendmail: request.sendmail, hiding: webhook))
        }
        guard !deliverers.isEmpty else {
            throw UsageError(
                "--test needs a channel: --telegram CHAT, --webhook URL or --mail ADDR "
                    + "(or METRIKA_TELEGRAM_CHAT, METRIKA_WEBHOOK_URL)")
        }
        let outcomes = try await AlertChannelTest.run(deliverers, now: context.now())
        for outcome in outcomes {
            if let failure = outcome.failure {
                context.stdout.write(
                    "\(outcome.who): not delivered: \(TerminalText.sanitize(context.naming.message(of: failure)))\n")
            } else {
                context.stdout.write("\(outcome.who): delivered\n")
            }
        }
        try context.stdout.flushChecked()
        return outcomes.first { $0.failure != nil }?.failure?.exitCode ?? ExitCode.ok
    }

    /// The run's refusals in the command line's words.
    static func usageError(_ error: AlertRunError) -> any Error {
        switch error {
        case .currencyWithoutShop:
            return UsageError(
                "--currency applies to a shop's revenue, which the config file's \"alerts\" turn off (\"shop\": false)")
        case .currencyWithToday:
            return UsageError("--currency applies to the daily check's revenue; --today judges visits and goals")
        case .noCountersOffline(let path):
            return CLIFailure.noCountersOffline(path: path)
        }
    }

    /// `--webhook`, else METRIKA_WEBHOOK_URL; its secret parts join the run's masked secrets at once.
    static func webhook(_ options: ParsedOptions, session: Session) throws -> Webhook? {
        let given = options[.webhook]
        if given != nil, given?.trimmingCharacters(in: .whitespaces).isEmpty == true {
            throw UsageError("--webhook needs a URL (such as https://hooks.slack.com/services/…)")
        }
        return try session.services.webhook(given: given, givenBy: "--webhook")
    }
}

// MARK: - Options of its own

extension Option where Value == String? {
    /// `--webhook URL`: a secret, masked wherever it could be shown.
    static var webhook: Option<String?> {
        .text(
            "webhook", value: "URL",
            help: "POST the alerts as JSON to this URL (default: METRIKA_WEBHOOK_URL); a secret, never shown")
    }
}

extension Option where Value == Bool {
    /// `--test` of alert: a sample alert through each channel.
    static var alertTest: Option<Bool> {
        .flag(
            "test",
            help: "Send one sample alert through each channel named (else each configured); a line per recipient")
    }

    /// `--today` of alert: the last finished hours (yesterday's too near midnight), for an hourly cron.
    static var today: Option<Bool> {
        .flag(
            "today",
            help:
                "Judge the last finished hours (near midnight yesterday's too) against the same hours of earlier weeks (for an hourly cron)"
        )
    }
}

extension Option where Value == [String] {
    /// `--mail ADDR[,ADDR…]` of alert: where the alerts are mailed.
    static var alertMail: Option<[String]> {
        .words("mail", value: "ADDR[,ADDR…]", help: "Mail the alerts, with charts, to these addresses (via sendmail)")
    }
}
