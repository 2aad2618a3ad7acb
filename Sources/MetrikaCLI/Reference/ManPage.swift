import MetrikaModel

/// The `metrika(1)` manual page in roff (`man` macros), generated from the command tables, their
/// options and help texts. docs/man/metrika.1 is its committed output; a test fails when the two differ
/// (re-record with `METRIKA_RECORD_GOLDEN=1 swift test --filter ManPage`).
public enum ManPage {
    /// Environment variables and their meaning.
    static let environment: [(name: String, meaning: String)] = [
        ("METRIKA_TOKEN", "OAuth token with the metrika:read scope (--token-file wins over it; the token file of metrika login is used when neither is given)."),
        ("METRIKA_CLIENT_ID, METRIKA_CLIENT_SECRET", "Your OAuth app, for metrika login, token renewal and logout."),
        ("METRIKA_PROFILE", "The profile of the config file to use when --profile is not given."),
        ("METRIKA_COUNTER", "The counter(s) report, chart and mail use without --counter (wins over the profile's and the config file's)."),
        ("METRIKA_API_URL", "API base URL (default: the profile's api_url, else https://api-metrika.yandex.net)."),
        ("METRIKA_OAUTH_URL", "OAuth base URL (default https://oauth.yandex.ru)."),
        ("METRIKA_DB", "The history database (default $XDG_DATA_HOME/metrika/metrika.sqlite)."),
        ("METRIKA_TIMEOUT", "Seconds per request before it counts as timed out (default 30)."),
        ("METRIKA_SENDMAIL", "The sendmail program metrika mail pipes to (default /usr/sbin/sendmail)."),
        ("METRIKA_NOW", "Pretend it is this instant (2026-11-29T12:00:00Z): reproducible reports."),
        ("NO_COLOR", "When set and not empty, nothing is coloured. Otherwise, on a terminal only (and not with TERM=dumb), the Error: and Warning: labels on standard error are red and yellow; pipes and files never get colour."),
        ("XDG_CONFIG_HOME, XDG_DATA_HOME", "Where the token file and the history live."),
    ]

    /// Exit codes and their meaning.
    static let exitCodes: [(code: Int32, meaning: String)] = [
        (ExitCode.ok, "Success."),
        (ExitCode.usage, "Usage error: unknown command or option, bad date, unknown metric."),
        (ExitCode.dataError, "The API answered something unreadable."),
        (ExitCode.unavailable, "The API or the network was unavailable after retries."),
        (ExitCode.cannotCreate, "An output file could not be created."),
        (ExitCode.tryLater, "A quota is exceeded: try later."),
        (ExitCode.noPermission, "Not signed in, token invalid, or access denied."),
        (ExitCode.config, "Bad configuration (METRIKA_API_URL, a malformed config file or unknown profile, an unusable history database)."),
        (130, "metrika login cancelled with Ctrl-C."),
        (ExitCode.failure, "Anything else."),
    ]

    /// The whole page.
    public static func render() -> String {
        var page = """
        .\\" Generated from metrika's command tables; do not edit. Re-record with
        .\\" METRIKA_RECORD_GOLDEN=1 swift test --filter ManPage
        .TH METRIKA 1 "" "metrika \(MetrikaVersion.current)" "User Commands"
        .SH NAME
        metrika \\- Yandex.Metrika statistics in the terminal, in CSV and JSON, in SVG charts and by mail
        .SH SYNOPSIS
        .B metrika
        .RB [ \\-v ]
        .I command
        .RI [ options ]
        .br
        .B metrika
        .RB [ \\-\\-help | \\-\\-version ]
        .SH DESCRIPTION
        metrika lists your Yandex.Metrika counters, prints a site's numbers as an aligned table, RFC 4180
        CSV or versioned JSON, keeps their history in a local SQLite database (so re-runs cost almost no
        API calls and reports work offline), draws SVG line charts, and mails them from cron.
        Data goes to standard output; progress, warnings and errors go to standard error.
        Every command takes
        .BR \\-\\-help ;
        .B metrika help
        .I command
        shows the same help. Every command that makes API or OAuth requests takes
        .BR \\-v / \\-\\-verbose ,
        after the command or before it
        .RB ( "metrika \\-v report" ).
        .SH COMMANDS

        """
        for command in CLI.commands {
            page += ".SS \"\(escape(command.name))\"\n"
            page += escape(command.summary) + ".\n"
            page += ".PP\n.B metrika\n" + escape(command.usage) + "\n"
            page += discussion(command.discussion)
            for spec in command.allOptions {
                page += ".TP\n" + optionHeading(spec) + "\n" + escape(spec.help) + "\n"
                if case .list(let names) = spec.values {
                    page += "Known names: " + escape(names.joined(separator: ", ")) + ".\n"
                }
            }
        }
        page += ".SH ENVIRONMENT\n"
        for variable in environment {
            page += ".TP\n.B \(escape(variable.name))\n\(escape(variable.meaning))\n"
        }
        page += ".SH EXIT STATUS\n"
        for exit in exitCodes {
            page += ".TP\n.B \(exit.code)\n\(escape(exit.meaning))\n"
        }
        page += """
        .SH FILES
        .TP
        .I $XDG_CONFIG_HOME/metrika/token.json
        The token of metrika login (mode 0600; a file others can read is refused).
        .TP
        .I $XDG_CONFIG_HOME/metrika/config.json
        Optional client_id and client_secret of your OAuth app.
        .TP
        .I $XDG_DATA_HOME/metrika/metrika.sqlite
        The history database.
        .SH SEE ALSO
        .BR sendmail (8),
        .BR crontab (5).
        Shell completions:
        .BR "metrika completions bash" | zsh | fish .
        https://yandex.ru/dev/metrika/

        """
        return page
    }

    /// `-c, --counter ID[,ID…]` in roff.
    static func optionHeading(_ spec: OptionSpec) -> String {
        var heading = spec.short.map { ".BR \\-\($0) \", \" \\-\\-\(escape(spec.name))" } ?? ".B \\-\\-\(escape(spec.name))"
        if let value = spec.valueName {
            if spec.short == nil { heading = ".BI \"\\-\\-\(escape(spec.name)) \" \"\(escape(value))\"" } else { heading += " \" \\fI\(escape(value))\\fR\"" }
        }
        return heading
    }

    /// A command's discussion: paragraphs, and indented lines (examples) kept as they are.
    static func discussion(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        var roff = ""
        var inExample = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  ") {
                if !inExample { roff += ".PP\n.nf\n.RS 4\n"; inExample = true }
                roff += escape(String(line.dropFirst(2))) + "\n"
                continue
            }
            if inExample { roff += ".RE\n.fi\n"; inExample = false }
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                roff += ".PP\n"
            } else {
                roff += escape(String(line)) + "\n"
            }
        }
        if inExample { roff += ".RE\n.fi\n" }
        return ".PP\n" + roff
    }

    /// Text made inert for roff: backslashes and dashes escaped, a line never starting a request.
    static func escape(_ text: String) -> String {
        var escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}
