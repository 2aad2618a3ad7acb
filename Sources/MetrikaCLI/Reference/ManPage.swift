import MetrikaModel

/// The `metrika(1)` manual page in roff (`man` macros), generated from the command tables, their
/// options and help texts. docs/man/metrika.1 is its committed output; a test fails when the two differ
/// (re-record with `METRIKA_RECORD_GOLDEN=1 swift test --filter ManPage`).
package enum ManPage {
    /// The whole page.
    package static func render() -> String {
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
        for variable in ReferenceTables.environment {
            page += ".TP\n.B \(escape(variable.names.joined(separator: ", ")))\n\(escape(variable.meaning))\n"
        }
        page += ".SH EXIT STATUS\n"
        for exit in ReferenceTables.exitCodes {
            page += ".TP\n.B \(exit.code)\n\(escape(exit.meaning))\n"
        }
        page += """
        .SH FILES
        .TP
        .I $XDG_CONFIG_HOME/metrika/token.json
        The token of metrika login (mode 0600; a file others can read is refused).
        .TP
        .I $XDG_CONFIG_HOME/metrika/token\\-NAME.json
        The token of a profile NAME (unless the profile names its token_file).
        .TP
        .I $XDG_CONFIG_HOME/metrika/config.json
        Optional settings, every member optional: client_id and client_secret of your OAuth app (the
        file must then be mode 0600), a default counter (an id or a list of ids), and profiles, named
        sets of token_file, api_url, counter, client_id and client_secret chosen with \\-\\-profile or
        METRIKA_PROFILE; clickhouse_url (a URL or a list, one per shard) and clickhouse_cluster for
        logs and sync. An unknown member, a wrong type or broken JSON stops every command that signs
        in with exit 78, naming the member or the line and column.
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
