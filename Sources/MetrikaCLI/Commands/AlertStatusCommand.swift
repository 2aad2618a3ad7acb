import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaUseCases

/// `metrika alert --status` (the open episodes of both checks, as a table or `--json`) and `metrika
/// alert --forget ID|all` (close episodes so that the next run may tell them again): offline, from the history
/// database alone, no request and no token.
extension AlertCommand {
    /// Whether the command line asks for the status or a forget instead of a check.
    static func managesEpisodes(_ options: ParsedOptions) -> Bool {
        options[.alertStatus] || options.contains(.forget)
    }

    static func runEpisodes(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let mode = options[.alertStatus] ? "--status" : "--forget"
        if options[.alertStatus], options.contains(.forget) {
            throw UsageError(
                "--status and --forget go apart: list the open alerts with --status, then forget one with --forget ID")
        }
        let checkOnly: [(String, Bool)] = [
            ("--webhook", options.contains(.webhook)), ("--mail", options.contains(.alertMail)),
            ("--dry-run", options[.dryRun]),
            ("--currency", options.contains(.currency)), ("--sender", options.contains(.sender)),
            ("--sendmail", options.contains(.sendmail))
        ]
        if let (name, _) = checkOnly.first(where: { $0.1 }) {
            throw UsageError("\(name) goes with a check, not with \(mode), which only reads the history database")
        }
        // --status and --forget cover both checks' alerts (a grain each); --today names a check.
        if options[.today] {
            throw UsageError(
                "--today goes with the hourly check, not with \(mode): \(mode) lists and forgets the alerts of both checks, daily and hourly"
            )
        }
        if options[.json], !options[.alertStatus] {
            throw UsageError("--json goes with --status")
        }
        let target = try forgetTarget(options)
        let status = AlertStatus(store: try await session.services.openHistory(readOnly: target == nil))
        if let target {
            let forgotten = try await status.forget(target)
            if forgotten.isEmpty, case .id(let id) = target {
                throw CLIFailure.unknownAlert(id: id)
            }
            if forgotten.isEmpty {
                context.stdout.write("No open alerts to forget.\n")
            }
            for entry in forgotten {
                context.stdout.write(
                    "Forgot alert \(entry.id): \(describe(entry)); the next run tells it again if it is still so.\n")
            }
            try context.stdout.flushChecked()
            return ExitCode.ok
        }
        let rows = try await status.entries().map(\.row)
        if options[.json] {
            // The text's `Not yet delivered` lines, one object per message: `undelivered`.
            let waiting = (try? await status.store.pendingOutboxMessages()) ?? []
            var json = AlertStatusList.json(rows)
            if case .object(let members) = json {
                json = .object(members + [("undelivered", undeliveredJSON(waiting))])
            }
            context.stdout.write(json.serialized(pretty: true) + "\n")
        } else {
            context.stdout.write(AlertStatusList.text(rows, maxWidth: context.terminalWidth))
            // Told is claimed: what the outbox still holds for a recipient is not delivered yet.
            for pending in (try? await status.store.pendingOutbox()) ?? [] {
                context.stdout.write(undelivered(pending) + "\n")
            }
        }
        try context.stdout.flushChecked()
        return ExitCode.ok
    }

    /// `Not yet delivered: 2 messages to Telegram chat 111 (alerts 4, 5), queued 2026-12-01T14:30:00Z; last: …`
    static func undelivered(_ pending: OutboxPending) -> String {
        let who: String
        switch pending.address.channel {
        case .telegram: who = "Telegram chat \(pending.address.recipient)"
        case .webhook: who = "the webhook \(pending.address.recipient)"
        case .mail: who = pending.address.recipient
        }
        let alerts = pending.episodes.sorted().map(String.init).joined(separator: ", ")
        var line = "Not yet delivered: \(OutboxDelivery.messages(pending.count)) to \(TerminalText.sanitize(who))"
        if !alerts.isEmpty { line += " (alert\(pending.episodes.count == 1 ? "" : "s") \(alerts))" }
        line += ", queued \(RFC3339.format(pending.oldest))"
        if let error = pending.lastError { line += "; last try: \(TerminalText.sanitize(error))" }
        return line
    }

    /// `--status --json`'s `undelivered`: each message still in the outbox, oldest first — `channel`
    /// (`telegram`, `webhook`, `mail`), `recipient`, `kind`, `tries`, `next_try`, `first_error`,
    /// `last_error` (null before a try), `queued_at`, `alerts` (the ids it tells).
    static func undeliveredJSON(_ waiting: [OutboxWaiting]) -> JSONValue {
        .array(waiting.map(undeliveredJSON))
    }

    /// One undelivered message's object.
    static func undeliveredJSON(_ message: OutboxWaiting) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        let alerts: [JSONValue] = message.episodes.map { .number(Double($0)) }
        let members: [(String, JSONValue)] = [
            ("channel", .string(message.channel.rawValue)), ("recipient", .string(message.recipient)),
            ("kind", .string(message.kind)), ("tries", .number(Double(message.attempts))),
            ("next_try", .string(RFC3339.format(message.nextAttemptAt))),
            ("first_error", text(message.firstError)), ("last_error", text(message.lastError)),
            ("queued_at", .string(RFC3339.format(message.queuedAt))), ("alerts", .array(alerts))
        ]
        return .object(members)
    }

    /// `--forget ID` or `--forget all`; nil without --forget.
    static func forgetTarget(_ options: ParsedOptions) throws -> AlertStatus.Target? {
        guard let text = options[.forget]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if text.lowercased() == "all" { return .all }
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int(text) else {
            throw UsageError(
                "--forget takes an alert's id (or all); run `metrika alert --status` for the open alerts and their ids")
        }
        return .id(id)
    }

    /// `520002 Блог: visits stopped since 2026-11-28`; an hourly one `… visits stopped (hourly) since
    /// 2026-12-01 14:00`.
    static func describe(_ entry: AlertStatus.Entry) -> String {
        let name = TerminalText.sanitize(entry.counterName, limit: 60)
        let row = entry.row
        return
            "\(entry.episode.counterID)\(name.isEmpty ? "" : " " + name): \(TerminalText.sanitize(entry.metricLabel, limit: 60)) \(row.kindText) since \(row.sinceText)"
    }
}

extension Option where Value == Bool {
    /// `alert --status`: the open alerts.
    static var alertStatus: Option<Bool> {
        .flag(
            "status",
            help: "List the open alerts (still wrong since they were told) with their ids, from the history; no request"
        )
    }
}

extension Option where Value == String? {
    /// `alert --forget ID|all`: close an open alert.
    static var forget: Option<String?> {
        .text(
            "forget", value: "ID|all",
            help:
                "Forget the open alert ID (from --status), or all of them: the next run tells it again if it is still so"
        )
    }
}
