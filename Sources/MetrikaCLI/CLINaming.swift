import MetrikaModel
import MetrikaUseCases

extension ParameterNaming {
    /// The CLI's words: a parameter is its option (`unsettledDays` → `--unsettled-days`), an action
    /// the command that does it. (Tests of the targets below word their errors with it, to see the
    /// sentences a person at the shell reads.)
    package static let cli = ParameterNaming(
        name: { "--" + $0.words.joined(separator: "-") },
        action: { cliAction($0) })

    /// The CLI's words for an action: the commands, options and environment variables a person at
    /// the shell uses.
    private static func cliAction(_ action: SuggestedAction) -> String {
        let elsewhere = "point METRIKA_DB (or --db) elsewhere"
        switch action {
        case .sync(let id): return "run metrika sync --counter \(id) (or the report without --offline)"
        case .cleanLogs(let id): return "metrika logs --counter \(id) --clean-all"
        case .watchToday(let id):
            return "see today against the same hours of earlier weeks with `metrika live --counter \(id)`"
        case .fetchOnline: return "run without --offline to fetch it"
        case .compareOtherDays(let id):
            return "compare with other days: metrika explain --counter \(id) --against previous (or DATE..DATE)"
        case .fillHistoryFirst:
            return "Fill it with `metrika sync --counter ID` (or run without --offline), then try again."
        case .alertCheck: return "metrika alert"
        case .signIn: return "Run `metrika login` (or set METRIKA_TOKEN) first."
        case .signInOrGiveToken: return "Run `metrika login` or set METRIKA_TOKEN."
        case .signInAgain: return "Sign in again with `metrika login`."
        case .signInAsViewer:
            return "Check the counter id, or sign in as an account that can view it (`metrika login`)."
        case .replaceTokenFile: return "Run `metrika login` to write a new one."
        case .replaceForeignTokenFile: return "Run `metrika login` to write your own."
        case .protectTokenFile(let path):
            return "Make it private with `chmod 600 \(path)`, or run `metrika logout` and `metrika login` to "
                + "get a new token."
        case .fixToken(let source):
            return source == "METRIKA_TOKEN"
                ? "Set METRIKA_TOKEN to the token alone, on one line."
                : "Run `metrika login` to write a new one, or fix the file."
        case .signInProfile(let name): return "Run `metrika login --profile \(name)` first."
        case .signInToKeyring:
            return "Run `metrika login --store keyring` to sign in again (or `metrika logout` to forget it)."
        case .storeInKeyringAgain: return "run `metrika login --store keyring` again."
        case .keepTokenInFile:
            return "keep the token in the private file (the default: `metrika login` without --store keyring)"
        case .signInAfterExpiry: return "Run `metrika login` to sign in again."
        case .renewToken: return "Run `metrika login` to renew it."
        case .giveAppCredentials:
            return "set METRIKA_CLIENT_ID and METRIKA_CLIENT_SECRET, or add client_id and client_secret to the "
                + "config file"
        case .giveAppSecret: return "set METRIKA_CLIENT_SECRET, or add client_secret to the (0600) config file"
        case .fillHistory: return "metrika sync"
        case .createHistory: return "`metrika sync` or `metrika report`"
        case .checkClock: return "is the clock or METRIKA_NOW right?"
        case .giveClientID:
            return "pass --client-id, set METRIKA_CLIENT_ID, or put \"client_id\" in the config file (see "
                + "docs/auth.md). Register an app with the metrika:read scope at https://oauth.yandex.ru/client/new, "
                + "or use `metrika login --token-stdin`."
        case .giveClientSecret:
            return "pass --client-secret, set METRIKA_CLIENT_SECRET, or put \"client_secret\" in the config "
                + "file (see docs/auth.md)."
        case .pipeToken: return "Pipe it in, e.g. `pbpaste | metrika login --token-stdin`, or type it and press Ctrl-D."
        case .signInSooner: return "Run `metrika login` again and confirm within the time shown."
        case .retrySignIn: return "Run `metrika login` again to retry."
        case .checkClientCredentials:
            return "Check --client-id/--client-secret, METRIKA_CLIENT_ID/METRIKA_CLIENT_SECRET or the config file."
        case .retrySignInThenDetails: return "Run `metrika login` again; if it persists, run with --verbose."
        case .narrowQuery: return "Use a shorter --from/--to range or a lower --accuracy."
        case .checkConnection(.api): return "Check the network or METRIKA_API_URL, and try again later."
        case .checkConnection(.oauth): return "Check the network or METRIKA_OAUTH_URL, and try again later."
        case .retryThenReport: return "Try again; if it persists, run with --verbose and report it."
        case .checkAPIAddress:
            return "Check METRIKA_API_URL (it must be the API's own address) or the proxy in "
                + "between."
        case .raiseResponseLimit:
            return "If the API really sends that much, raise METRIKA_MAX_RESPONSE (bytes, "
                + "or with K, M, G)."
        case .checkTLS:
            return "Check METRIKA_API_URL, the system clock and the CA certificates, or a proxy that intercepts HTTPS."
        case .reportUnexpected: return "Run the same command with --verbose to see its kind, and report it."
        case .chooseAnotherDatabase: return "move it away or \(elsewhere)"
        case .restoreDatabase:
            return "restore a backup, or move it away or \(elsewhere) and run `metrika sync` "
                + "to rebuild it"
        case .upgradeForDatabase: return "upgrade metrika, or move it away or \(elsewhere)"
        case .checkDatabaseDirectory: return "check the directory and its permissions, or \(elsewhere)"
        case .makeDatabaseWritable: return "make it (and its directory) writable for this user, or \(elsewhere)"
        case .freeDatabaseDisk: return "free space on its disk, or \(elsewhere)"
        case .giveClickHouseCredentials: return "set METRIKA_CLICKHOUSE_USER and METRIKA_CLICKHOUSE_PASSWORD instead."
        case .checkTelegramToken: return "check the token @BotFather gave (METRIKA_TELEGRAM_TOKEN)."
        case .checkTelegramAddress: return "check METRIKA_TELEGRAM_API_URL."
        case .useTelegram: return "--telegram and metrika bot"
        case .giveTelegramToken(let path):
            return "set METRIKA_TELEGRAM_TOKEN, or \"telegram\": {\"token\": …} in \(path) (chmod 600), or keep "
                + "it in the keyring with \"telegram\": {\"keyring\": \"telegram\"} there (docs/telegram.md)"
        }
    }
}

/// A use case's `WordedFailure` in the CLI's words: the `UsageError` (exit 64, the usage line) of a
/// parameter error, else a failure with the CLI's message. Commands read their options through it,
/// so what they throw is what the CLI prints.
func cliWorded<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ParameterError {
        throw UsageError(error.message(.cli))
    }
}

extension ParameterDeclaration {
    /// The CLI option of a declared parameter: `--` and its words joined by `-`, its value's name,
    /// the help for a person, the completions. Help, the usage line, completions and the man page
    /// read it as they read every `OptionSpec`.
    var optionSpec: OptionSpec {
        let name = String(ParameterNaming.cli[parameter].dropFirst(2))
        if shape == .flag { return OptionSpec(name, short: short, help: help(.cli)) }
        return OptionSpec(name, short: short, value: valueName, help: help(.cli), choices: completions)
    }
}

extension ParsedOptions {
    /// What the command line held for a declared parameter, as the words its `read` takes: nil when
    /// not given, none for a flag; a list's comma lists split, a single value's last one.
    func words<Fields>(for declaration: ParameterDeclaration<Fields>) -> [String]? {
        let name = declaration.optionSpec.name
        switch declaration.shape {
        case .flag: return flags.contains(name) ? [] : nil
        case .list, .ids: return values[name].map { Self.split($0) }
        case .text, .integer: return values[name]?.last.map { [$0] }
        }
    }

    /// Reads every declared parameter that was given into `fields`, in the order declared; a bad
    /// value is the CLI's usage error.
    func read<Fields>(_ declarations: [ParameterDeclaration<Fields>], into fields: inout Fields) throws {
        for declaration in declarations {
            guard let words = words(for: declaration) else { continue }
            try cliWorded { try declaration.read(&fields, words) }
        }
    }
}

extension Option where Value == Int? {
    /// `--unsettled-days N` of report and sync: recent days refetched, as `ReportFields` declares it.
    static var unsettledDays: Option<Int?> {
        Option(ReportFields.unsettledDays.optionSpec) { given in
            guard let text = given?.last else { return nil }
            var fields = ReportFields()
            try ReportFields.unsettledDays.read(&fields, [text])
            return fields.unsettledDays
        }
    }
}
