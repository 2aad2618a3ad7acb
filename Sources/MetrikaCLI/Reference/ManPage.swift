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
            API calls and reports work offline), draws SVG line charts, and mails them from cron. It tells
            owners what went wrong (alert: a stop, a drop or a bot wave, daily or hour by hour, by webhook,
            mail or Telegram), explains what a change is made of (explain), answers in Telegram (bot), loads
            raw visits and hits into ClickHouse (logs), and serves AI assistants (mcp).
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
            sets of token_file, api_url, counter, client_id, client_secret, login and ulogin chosen with
            \\-\\-profile or METRIKA_PROFILE (all, or NAME,NAME: several logins); clickhouse_url (a URL or a list, one per shard) and clickhouse_cluster for
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
        return withFallbacks(page)
    }

    /// The page with a fallback glyph defined for each character it names by code (`\[u0417]`), for
    /// an output device without it (`LC_ALL=C man`, groff's ascii): a transliteration, never a warning.
    static func withFallbacks(_ page: String) -> String {
        var codes: [String] = []
        var rest = Substring(page)
        while let start = rest.range(of: "\\[u") {
            let tail = rest[start.upperBound...]
            guard let end = tail.firstIndex(of: "]") else { break }
            let code = String(tail[..<end])
            if !codes.contains(code) { codes.append(code) }
            rest = tail[end...]
        }
        guard !codes.isEmpty, let header = page.range(of: "\n.SH NAME\n") else { return page }
        let definitions = codes.map { code -> String in
            let scalar = UInt32(code, radix: 16).flatMap(Unicode.Scalar.init).map(Character.init)
            return ".if !c\\[u\(code)] .char \\[u\(code)] \(scalar.map(asciiFallback) ?? "?")\n"
        }.joined()
        var result = page
        result.insert(contentsOf: "\n" + definitions.dropLast(), at: header.lowerBound)
        return result
    }

    /// What a character without an ASCII form reads as on an ASCII device.
    static func asciiFallback(_ character: Character) -> String {
        if let known = fallbacks[character] { return known }
        let lower = Character(character.lowercased())
        guard let latin = cyrillic[lower] else { return "?" }
        return lower == character || latin.isEmpty ? latin : latin.prefix(1).uppercased() + latin.dropFirst()
    }

    static let fallbacks: [Character: String] = ["₽": "RUB", "·": "|", "«": "<<", "»": ">>", "’": "'"]
    static let cyrillic: [Character: String] = [
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z", "и": "i", "й": "i",
        "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f",
        "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
        "я": "ya"
    ]

    /// The characters with a roff name of their own that every groff device draws (an ASCII form on
    /// an ASCII one); any other non-ASCII character is written by its code, `\[u0417]`.
    static let named: [Character: String] = [
        "—": "\\(em", "–": "\\(en", "−": "\\(mi", "×": "\\(mu", "→": "\\(->", "←": "\\(<-", "…": "\\&..."
    ]

    /// `-c, --counter ID[,ID…]` in roff.
    static func optionHeading(_ spec: OptionSpec) -> String {
        var heading =
            spec.short.map { ".BR \\-\($0) \", \" \\-\\-\(escape(spec.name))" } ?? ".B \\-\\-\(escape(spec.name))"
        if let value = spec.valueName {
            if spec.short == nil {
                heading = ".BI \"\\-\\-\(escape(spec.name)) \" \"\(escape(value))\""
            } else {
                heading += " \" \\fI\(escape(value))\\fR\""
            }
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
                if !inExample {
                    roff += ".PP\n.nf\n.RS 4\n"
                    inExample = true
                }
                roff += escape(String(line.dropFirst(2))) + "\n"
                continue
            }
            if inExample {
                roff += ".RE\n.fi\n"
                inExample = false
            }
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                roff += ".PP\n"
            } else {
                roff += escape(String(line)) + "\n"
            }
        }
        if inExample { roff += ".RE\n.fi\n" }
        return ".PP\n" + roff
    }

    /// Text made inert for roff: backslashes and dashes escaped, a line never starting a request, and
    /// only ASCII — every other character an escape (raw UTF-8 reads wrong under `LC_ALL=C` and troff
    /// warns about it).
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-") {
            if character.isASCII {
                escaped.append(character)
            } else if let name = named[character] {
                escaped += name
            } else {
                for scalar in character.unicodeScalars {
                    escaped +=
                        "\\[u" + String(repeating: "0", count: max(0, 4 - String(scalar.value, radix: 16).count))
                        + String(scalar.value, radix: 16, uppercase: true) + "]"
                }
            }
        }
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}
