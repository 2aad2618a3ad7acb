import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaUseCases

// Option groups several commands share. Each declares its typed keys (`Option`, whose specs help,
// usage lines, completions and the man page read) and parses them once into a typed, validated value:
// commands ask the group or read a key (`options[.limit]`), never look an option up by its name.

// MARK: - Counter

/// `--counter ID[,ID…]`: which counters.
enum CounterOptions {
    /// The option, with the wording of the command that takes it.
    static func spec(value: String = "ID[,ID…]", help: String = "Counter id(s); repeatable") -> OptionSpec {
        Option.counter.described(help, value: value).spec
    }

    /// The counter ids, each once, in the order given; missing or malformed ones are usage errors.
    static func ids(_ options: ParsedOptions) throws -> [Int] {
        let texts = options[.counter]
        guard !texts.isEmpty else {
            throw UsageError(
                "Missing --counter ID (see `metrika counters` for your counters' ids), or set a default \"counter\" in the config file (docs/auth.md)"
            )
        }
        var ids: [Int] = []
        for text in texts {
            let id = try cliWorded { try ReportTerms.counterID(text) }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// Exactly one counter id. When several come from a default (a profile's list, say), the message
    /// names that place and asks for --counter, rather than blaming an option that was not given.
    static func one(_ options: ParsedOptions) throws -> Int {
        let ids = try ids(options)
        guard ids.count == 1 else {
            if let source = options.counterDefaultSource {
                throw UsageError(
                    "this command takes one counter, but \(source) names \(ids.count) (\(ids.map(String.init).joined(separator: ", "))): choose one with --counter ID"
                )
            }
            throw UsageError("--counter takes one counter id here, not \(ids.count)")
        }
        return ids[0]
    }
}

extension Option where Value == [String] {
    /// `--counter ID[,ID…]`, as written (`CounterOptions` reads the ids, with the message that
    /// names where a default came from).
    static var counter: Option<[String]> {
        .words("counter", short: "c", value: "ID[,ID…]", help: "Counter id(s); repeatable")
    }
}

// MARK: - Metrics

/// `--metrics LIST`: which metrics; nil when not given (the command's default applies, see `DefaultMetrics`).
enum MetricsOptions {
    static func spec(help: String) -> OptionSpec {
        Option.metrics.described(help).spec
    }

    static func metrics(_ options: ParsedOptions) throws -> [Metric]? {
        let texts = options[.metrics]
        if options.contains(.metrics) && texts.isEmpty {
            throw UsageError("--metrics is empty: list metrics like visits,bounceRate")
        }
        guard !texts.isEmpty else { return nil }
        return try cliWorded { try ReportTerms.metrics(texts) }
    }
}

extension Option where Value == [String] {
    /// `--metrics LIST`, as written (`MetricsOptions` reads the metrics).
    static var metrics: Option<[String]> { .words("metrics", short: "m", value: "LIST", help: "Metrics") }
}

// MARK: - Money

/// `--currency RUB|USD|EUR|YND` (report, chart, mail) and `--attribution MODEL` (report).
enum MoneyOptions {
    static var currencySpec: OptionSpec { Option.currency.spec }
    static var attributionSpec: OptionSpec { Option.attribution.spec }

    static func currency(_ options: ParsedOptions) throws -> Currency? {
        try options[.currency]
    }

    /// `--currency` where no column is money would change nothing: refused, like the other options
    /// that would be silently ignored. A preset's columns are the API's to say, so it may be money.
    static func refuseCurrencyWithoutMoney(_ currency: Currency?, metrics: [Metric], preset: String? = nil) throws {
        try cliWorded { try ReportRequest.refuseCurrencyWithoutMoney(currency, metrics: metrics, preset: preset) }
    }

    static func attribution(_ options: ParsedOptions) throws -> Attribution? {
        try options[.attribution]
    }
}

extension Option where Value == Currency? {
    /// `--currency RUB|USD|EUR|YND`: one of the currencies Metrika converts to.
    static var currency: Option<Currency?> {
        .value(
            "currency", value: "RUB|USD|EUR|YND",
            help:
                "Money (revenue, revenuePerPurchase, …) in this currency (default: the counter's own, as the API says)",
            choices: Currency.known.map(\.code)
        ) { text in
            try ReportTerms.currency(text)
        }
    }
}

extension Option where Value == Attribution? {
    /// `--attribution MODEL`: a current model, or an older name mapped to one.
    static var attribution: Option<Attribution?> {
        .value(
            "attribution", value: "MODEL",
            help:
                "Attribution model of reports by source: automatic, cross_device_last_significant, cross_device_first, last, … (older ones are mapped)",
            choices: Attribution.accepted
        ) { text in
            try ReportTerms.attribution(text)
        }
    }
}

// MARK: - Dates

/// `--from DATE`, `--to DATE` or `--period NAME`: the days of a report or chart.
struct DateOptions {
    var from: DateExpression
    var to: DateExpression
    /// `--period`, when the dates came from it.
    var period: NamedPeriod?

    /// The help of `--period NAME`, the same wherever it is taken.
    static let periodHelp =
        "A named period instead of --from/--to: today, yesterday, thisWeek, lastWeek, thisMonth, lastMonth, thisYear, lastYear, lastNdays"

    /// The three options; `defaultFrom` is named in `--from`'s help.
    static func specs(defaultFrom: String) -> [OptionSpec] {
        [Option.from.described("First day (default \(defaultFrom))").spec, Option.to.spec, Option.period.spec]
    }

    /// `--from`/`--to`, or `--period` (never both); `defaultFrom` when neither is given. A range that
    /// is reversed whatever the time zone is refused here, before any request.
    static func parse(_ options: ParsedOptions, defaultFrom: String) throws -> DateOptions {
        let dates = try cliWorded {
            try ReportDates.parse(
                from: options[.from], to: options[.to], period: options[.period], defaultFrom: defaultFrom)
        }
        return DateOptions(from: dates.from, to: dates.to, period: dates.period)
    }
}

extension Option where Value == String? {
    /// `--from DATE`, as written (`DateOptions` reads it, with the command's default).
    static var from: Option<String?> { .text("from", value: "DATE", help: "First day") }
    /// `--to DATE`, as written (`DateOptions`); not `--to ADDR` of mail (`recipients`).
    static var to: Option<String?> { .text("to", value: "DATE", help: "Last day (default today)") }
    /// `--period NAME`, as written (`DateOptions` reads the named period).
    static var period: Option<String?> {
        .text(
            "period", value: "NAME", help: DateOptions.periodHelp,
            choices: NamedPeriod.names.filter { $0 != "lastNdays" })
    }
}

/// `--group day|week|month`.
enum GroupingOptions {
    static func spec(help: String) -> OptionSpec {
        Option.group.described(help).spec
    }

    static func grouping(_ options: ParsedOptions) throws -> Grouping {
        try options[.group] ?? .day
    }
}

extension Option where Value == Grouping? {
    /// `--group day|week|month`; nil when not given (the day, unless a command says otherwise).
    static var group: Option<Grouping?> {
        .choice("group", help: "Grouping")
    }
}

// MARK: - History

/// `--offline` / `--refresh`: how a history-backed command treats the history database.
struct HistoryOptions {
    /// The history only: no network.
    var offline: Bool
    /// Refetch the whole range.
    var refresh: Bool

    static var offlineSpec: OptionSpec { Option.offline.spec }
    static var specs: [OptionSpec] { [Option.offline.spec, Option.refresh.spec] }

    static func parse(_ options: ParsedOptions) throws -> HistoryOptions {
        if options[.offline] && options[.refresh] {
            throw UsageError("--offline and --refresh contradict each other: choose one")
        }
        return HistoryOptions(offline: options[.offline], refresh: options[.refresh])
    }
}

extension Option where Value == Bool {
    /// `--offline`: the history only, no network.
    static var offline: Option<Bool> { .flag("offline", help: "Use the history database only: no network") }
    /// `--refresh`: refetch the whole range.
    static var refresh: Option<Bool> { .flag("refresh", help: "Refetch the whole range, ignoring the history") }
}

/// `--db PATH`: the history database.
enum DatabaseOptions {
    static var specs: [OptionSpec] { [Option.db.spec] }

    /// `--db`, else METRIKA_DB, else the XDG default.
    static func path(_ options: ParsedOptions, environment: [String: String]) -> String {
        options[.db] ?? HistoryStore.defaultPath(environment: environment)
    }
}

extension Option where Value == String? {
    /// `--db PATH`: the history database.
    static var db: Option<String?> {
        .text(
            "db", value: "PATH",
            help: "History database (default: METRIKA_DB, else $XDG_DATA_HOME/metrika/metrika.sqlite)")
    }
}

// MARK: - Token

/// Where the token comes from, for commands that call the API (read by `ServicesSelection`).
enum TokenOptions {
    /// `--profile NAME`: a named profile of the config file (token file, API URL, default counter).
    static var profile: OptionSpec { Option.profile.spec }

    static var specs: [OptionSpec] { [Option.tokenFile.spec, Option.profile.spec] }
}

extension Option where Value == String? {
    /// `--profile NAME`: a named profile of the config file.
    static var profile: Option<String?> {
        .text(
            "profile", value: "NAME",
            help:
                "Use this profile of $XDG_CONFIG_HOME/metrika/config.json (else METRIKA_PROFILE); all or NAME,NAME: several logins"
        )
    }
    /// `--token-file PATH`: the token file to read (login and logout: to write, to delete).
    static var tokenFile: Option<String?> {
        .text(
            "token-file", value: "PATH",
            help: "Read the token from this file instead of METRIKA_TOKEN or the default token file")
    }
}

// MARK: - ClickHouse

extension Option where Value == String? {
    /// `--clickhouse URL[,URL…]` (logs, sync), as written: one URL, or one per shard with `--cluster`
    /// (`ClickHouseOptions` knows the defaults of the environment and the config file).
    static var clickhouse: Option<String?> {
        .text(
            "clickhouse", value: "URL[,URL…]",
            help: "ClickHouse over HTTP (e.g. http://127.0.0.1:8123); one URL per shard with --cluster")
    }
    /// `--cluster NAME` (logs, sync): the shards' cluster, as in remote_servers.
    static var cluster: Option<String?> {
        .text(
            "cluster", value: "NAME",
            help: "A sharded ClickHouse: NAME as in remote_servers (default: METRIKA_CLICKHOUSE_CLUSTER)")
    }
}

// MARK: - Format

/// `--format table|csv|json`, `--csv`, `--json`, and the CSV options `--crlf`, `--csv-formulas`.
struct FormatOptions {
    var format: OutputFormat
    /// Line ends and formula policy of CSV output (whether stdout is a terminal is set by the caller).
    var csv: CSVWriter

    static var specs: [OptionSpec] { specs(html: false) }

    /// The options; `html`: `--format` also offers `html` (`report`: one self-contained page, see
    /// `PageOptions`).
    static func specs(html: Bool) -> [OptionSpec] {
        [
            html
                ? Option.format.described(
                    "Output format (default: table); html: one self-contained page", value: "table|csv|json|html"
                ).spec
                : Option.format.spec,
            Option.csv.spec, Option.json.spec, Option.crlf.spec, Option.csvFormulas.spec
        ]
    }

    /// Reads the options; contradictions, and CSV options with another format, are usage errors.
    /// `toTerminal`: stdout is a terminal (see `CSVWriter.terminal`).
    static func parse(_ options: ParsedOptions, toTerminal: Bool) throws -> FormatOptions {
        let format = try OutputFormat.from(options)
        return FormatOptions(
            format: format, csv: try OutputFormat.csvWriter(options, format: format, toTerminal: toTerminal))
    }
}

extension Option where Value == String? {
    /// `--format NAME`, as written: `OutputFormat` reads it (and `PageOptions` its `html`).
    static var format: Option<String?> {
        .text("format", value: "table|csv|json", help: "Output format (default: table)")
    }
    /// `--output FILE`: where a command writes its file (report's page, chart, mail, logs).
    static var output: Option<String?> { .text("output", short: "o", value: "FILE", help: "Write to FILE") }
}

extension Option where Value == Bool {
    /// `--csv`: `--format csv`.
    static var csv: Option<Bool> { .flag("csv", help: "Same as --format csv") }
    /// `--json`: `--format json`.
    static var json: Option<Bool> { .flag("json", help: "Same as --format json") }
    /// `--crlf`: CSV records end with CRLF.
    static var crlf: Option<Bool> { .flag("crlf", help: "CSV: end records with CRLF as RFC 4180 asks (default: LF)") }
}

extension Option where Value == CSVWriter.Formulas? {
    /// `--csv-formulas defuse|keep`.
    static var csvFormulas: Option<CSVWriter.Formulas?> {
        .choice(
            "csv-formulas",
            help: "CSV: text starting with = + - @ TAB CR gets a leading ' (defuse, the default) or is kept as is")
    }
}

/// `--format html [--output FILE]` of `report`: the report as one HTML page, on stdout or in a file.
struct PageOptions {
    /// Where the page goes: a file (written atomically), or nil for stdout.
    var path: String?

    /// `--output FILE`: only with `--format html` (table, CSV and JSON stream to stdout; redirect it).
    static var outputSpec: OptionSpec {
        Option.output.described(
            "With --format html: write the page to FILE (atomically) instead of stdout", value: "FILE.html"
        ).spec
    }

    /// The page options when `--format html` is chosen, nil for the other formats. `--csv`/`--json`
    /// beside it, the CSV options, and `--output` without it are usage errors.
    static func parse(_ options: ParsedOptions) throws -> PageOptions? {
        if let text = options[.format], OutputFormat(rawValue: text.lowercased()) == nil, text.lowercased() != "html" {
            throw UsageError("--format must be table, csv, json or html, not '\(text)'")
        }
        guard options[.format]?.lowercased() == "html" else {
            if options.contains(.output) {
                throw UsageError(
                    "--output applies to --format html; table, CSV and JSON go to standard output (redirect it: > FILE)"
                )
            }
            return nil
        }
        if let other = [Option.csv, Option.json].first(where: { options[$0] }) {
            throw UsageError("Choose one output format: --format html and --\(other.name) contradict each other")
        }
        if let option = OutputFormat.csvOnly(options) {
            throw UsageError("--\(option) applies to CSV output only, not to --format html")
        }
        var path = options[.output]
        if path == "-" { path = nil }
        if let path, path.isEmpty { throw UsageError("--output needs a file name (or - for standard output)") }
        return PageOptions(path: path)
    }

    /// Refuses, before any request, a page file that cannot be created: a directory, or a folder
    /// that does not exist (exit 73, as the write itself would, but without fetching a report first).
    func checkWritable() throws {
        guard let path else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIFailure.outputIsDirectory(path: path)
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty,
            !(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue)
        {
            throw CLIFailure.outputFolderMissing(path: path, folder: folder)
        }
    }
}

// MARK: - Positionals

extension ParsedOptions {
    /// Refuses words that are not options, for commands that take none.
    func requireNoPositionals() throws {
        guard positionals.isEmpty else { throw UsageError("Unexpected argument '\(positionals[0])'") }
    }
}
