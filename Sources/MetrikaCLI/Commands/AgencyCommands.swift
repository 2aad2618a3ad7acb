import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// `metrika accounts`: the accounts each login of the run represents (`GET /management/v1/accounts`),
/// which a profile acts for with `"ulogin"`.
enum AccountsCommand: Command {
    static let name = "accounts"
    static let summary = "List the accounts a login represents (for a profile's \"ulogin\")"
    static let synopses: [[UsageTerm]] = [[.optional(.profile), .optional(.format)]]
    static let discussion = """
        With --profile all (or NAME,NAME) each profile's login is asked. A profile acts for one of
        these accounts with "ulogin": "LOGIN" in the config file (docs/auth.md, Agencies).

        Examples:
          metrika accounts
          metrika accounts --profile all --json
        """
    static let options: [OptionSpec] = FormatOptions.specs + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let client = try await session.services.client()
        var rows: [(profile: String?, account: RepresentedAccount)] = []
        for route in client.allRoutes {
            for account in try await client.fetchAccounts(route: route) { rows.append((route.profile, account)) }
        }
        let profiles = client.allRoutes.count > 1
        let out = context.stdout
        switch output.format {
        case .table:
            if rows.isEmpty {
                context.note("No represented accounts.")
                return ExitCode.ok
            }
            var table = TextTable(
                columns: (profiles ? [TextTable.Column("Profile")] : []) + [
                    .init("Account"), .init("Since"), .init("Comment")
                ])
            for row in rows {
                table.append(
                    (profiles ? [row.profile ?? ""] : [])
                        + [row.account.userLogin, row.account.createdAt ?? "", row.account.comment ?? ""])
            }
            out.write(table.render(maxWidth: context.terminalWidth))
        case .csv:
            try output.csv.write(["profile", "user_login", "created_at", "comment"], to: out.writer)
            for row in rows {
                try output.csv.write(
                    [row.profile ?? "", row.account.userLogin, row.account.createdAt ?? "", row.account.comment ?? ""],
                    to: out.writer)
            }
        case .json:
            let items = rows.map { row -> JSONValue in
                .object([
                    ("profile", .string(row.profile)), ("user_login", .string(row.account.userLogin)),
                    ("created_at", .string(row.account.createdAt)), ("comment", .string(row.account.comment))
                ])
            }
            out.write(
                JSONValue.object([("version", .number(1)), ("accounts", .array(items))]).serialized(pretty: true) + "\n"
            )
        }
        return ExitCode.ok
    }
}

/// `metrika quota`: what the quota ledger knows of each login's use (docs/reliability.md).
enum QuotaCommand: Command {
    static let name = "quota"
    static let summary = "Show each login's API quota use: today, last 5 minutes, left, in flight"
    static let synopses: [[UsageTerm]] = [[.optional(.db), .optional(.format)]]
    static let discussion = """
        The ledger in the history database counts every request a run with a profile sends (every
        run with METRIKA_QUOTA_LEDGER=on), per Yandex login: 5,000 a day (the API's day starts at
        00:00 UTC), 200 Reporting requests in any 5 minutes, 3 in flight, 30 a second for the machine.

        Example:
          metrika quota --json
        """
    static let options: [OptionSpec] = FormatOptions.specs + DatabaseOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let output = try FormatOptions.parse(options, toTerminal: context.stdoutIsTerminal)
        let uses = try await session.services.quotaUse()
        let limits = QuotaLimits.api
        let out = context.stdout
        switch output.format {
        case .table:
            if uses.isEmpty {
                context.note("The quota ledger has no requests yet.")
                return ExitCode.ok
            }
            var table = TextTable(columns: [
                .init("Login"), .init("Today", alignment: .right), .init("Left today", alignment: .right),
                .init("Last 5 min", alignment: .right), .init("Left 5 min", alignment: .right),
                .init("In flight", alignment: .right)
            ])
            for use in uses {
                table.append([
                    use.login, String(use.today), String(max(0, limits.daily - use.today)), String(use.last5Minutes),
                    String(max(0, limits.reportingPer5Minutes - use.last5Minutes)), String(use.inFlight)
                ])
            }
            out.write(table.render(maxWidth: context.terminalWidth))
        case .csv:
            try output.csv.write(
                ["login", "today", "left_today", "reporting_5min", "left_5min", "in_flight"], to: out.writer)
            for use in uses {
                try output.csv.write(
                    [
                        use.login, String(use.today), String(max(0, limits.daily - use.today)),
                        String(use.last5Minutes), String(max(0, limits.reportingPer5Minutes - use.last5Minutes)),
                        String(use.inFlight)
                    ], to: out.writer)
            }
        case .json:
            let items = uses.map { use -> JSONValue in
                .object([
                    ("login", .string(use.login)), ("today", .number(Double(use.today))),
                    ("left_today", .number(Double(max(0, limits.daily - use.today)))),
                    ("reporting_5min", .number(Double(use.last5Minutes))),
                    ("left_5min", .number(Double(max(0, limits.reportingPer5Minutes - use.last5Minutes)))),
                    ("in_flight", .number(Double(use.inFlight)))
                ])
            }
            out.write(
                JSONValue.object([
                    ("version", .number(1)), ("daily_limit", .number(Double(limits.daily))),
                    ("reporting_limit_5min", .number(Double(limits.reportingPer5Minutes))),
                    ("parallel_limit", .number(Double(limits.parallel))), ("logins", .array(items))
                ]).serialized(pretty: true) + "\n")
        }
        return ExitCode.ok
    }
}
