import MetrikaAPI
import MetrikaModel
import MetrikaServices
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases
import MetrikaWarehouse
import Testing

@testable import MetrikaCLI

/// Issue 44 item 2: failures below the entry points carry their fix as data, and the CLI words them
/// exactly as it did when each failure held its own sentence (the texts below are those sentences).
@Suite struct FailureWordsTests {
    /// Representative failures, each with the CLI's sentence byte for byte.
    static let cases: [(failure: any MetrikaFailure, cli: String)] = [
        (AuthError.notSignedIn, "Not signed in: no token found. Run `metrika login` (or set METRIKA_TOKEN) first."),
        (
            AuthError.notSignedInProfile(name: "work", path: "/c/work.json"),
            "Not signed in for profile 'work': there is no token file /c/work.json. Run `metrika login --profile "
                + "work` first."
        ),
        (
            AuthError.insecureTokenFile(path: "/t.json", mode: 0o644),
            "The token file /t.json is accessible by others (mode 0644), so it is not used. "
                + "Make it private with `chmod 600 /t.json`, or run `metrika logout` and `metrika login` to get a "
                + "new token."
        ),
        (
            AuthError.malformedToken(source: "METRIKA_TOKEN", problem: "a line break"),
            "The token in METRIKA_TOKEN holds a line break, so it is not used (it would not reach the API intact). "
                + "Set METRIKA_TOKEN to the token alone, on one line."
        ),
        (
            AuthError.keyringEntryUnreadable(path: "/t.json", keyring: "the GNOME keyring"),
            "Cannot use the GNOME keyring: its entry for /t.json holds no token; run `metrika login --store keyring` again."
        ),
        (
            AuthError.keyringToolMissing(keyring: "the Secret Service keyring", instead: nil),
            "Cannot use the Secret Service keyring: secret-tool is not installed (Debian/Ubuntu: apt-get install libsecret-tools); "
                + "or keep the token in the private file (the default: `metrika login` without --store keyring)."
        ),
        (
            APIError.invalidToken,
            "The API rejected the token (invalid_token): it is wrong, expired or revoked. Sign in again with "
                + "`metrika login`."
        ),
        (
            APIError.queryTooComplicated("Query is too complicated"),
            "The API says the query is too complicated (query_error: Query is too complicated). "
                + "Use a shorter --from/--to range or a lower --accuracy."
        ),
        (
            APIError.accessDenied("Access is denied.", counterID: 1003),
            "Access denied: Access is denied. Check the counter id, or sign in as an account that can view it "
                + "(`metrika login`)."
        ),
        (
            APIError.unavailable("timed out"),
            "The Metrika API is unavailable: timed out. Check the network or METRIKA_API_URL, and try again later."
        ),
        (
            OAuthError.invalidGrant("revoked"),
            "The OAuth server rejected the grant (invalid_grant: revoked): it expired or was revoked. Sign in "
                + "again with `metrika login`."
        ),
        (
            StoreError(.notADatabase, path: "/h.sqlite", detail: "file is not a database"),
            "the history database /h.sqlite is not an SQLite database (file is not a database); metrika left it "
                + "untouched — "
                + "move it away or point METRIKA_DB (or --db) elsewhere"
        ),
        (
            StoreError(.corrupt, path: "/h.sqlite"),
            "the history database /h.sqlite is damaged; metrika left it untouched — restore a backup, or move it away or "
                + "point METRIKA_DB (or --db) elsewhere and run `metrika sync` to rebuild it"
        ),
        (
            StoreError(.full, path: "/h.sqlite", detail: "disk I/O error"),
            "the history database /h.sqlite is full (disk I/O error) — free space on its disk, or point METRIKA_DB "
                + "(or --db) elsewhere"
        ),
        (
            ClickHouseError.unsupportedEngine(table: "metrika.visits", engine: "Log"),
            "table metrika.visits has engine Log; metrika loads into MergeTree tables (a re-loaded range replaces "
                + "its partitions): "
                + "choose another --table, or drop this one so that metrika creates it."
        ),
        (
            ClickHouseError.credentialsInURL,
            "--clickhouse must not hold a user or password (they would show in the process list); "
                + "set METRIKA_CLICKHOUSE_USER and METRIKA_CLICKHOUSE_PASSWORD instead."
        ),
        (
            LogExportError.noRoom(counterID: 1001, maxDays: 0),
            "counter 1001 has no room for a log request now (max_possible_day_quantity 0): its 10 GB of prepared "
                + "logs is full. "
                + "Run `metrika logs --counter 1001 --clean-all` to free it."
        ),
        (
            UnexpectedFailure(typeName: "X"),
            "metrika stopped on an error it does not expect; nothing more is known about it. "
                + "Run the same command with --verbose to see its kind, and report it."
        ),
        (
            ConfigError.missingTelegramToken(path: "/c/config.json"),
            "Telegram (--telegram and metrika bot) needs the bot's token from @BotFather: set METRIKA_TELEGRAM_TOKEN, "
                + "or \"telegram\": {\"token\": …} in /c/config.json (chmod 600), or keep it in the keyring with "
                + "\"telegram\": {\"keyring\": \"telegram\"} there (docs/telegram.md)."
        ),
        (
            ConfigError.unknownProfile(name: "acme", selector: "METRIKA_PROFILE", path: "/c/config.json", known: ["a"]),
            "METRIKA_PROFILE names the profile 'acme', which the config file /c/config.json does not define (it defines "
                + "a). Add it under \"profiles\", or change or unset METRIKA_PROFILE."
        ),
        (
            ConfigError.unknownProfile(name: "all", selector: "METRIKA_PROFILE", path: "/c/config.json", known: []),
            "METRIKA_PROFILE all runs over every profile of the config file /c/config.json, which defines none. Define "
                + "one per Yandex login under \"profiles\" (docs/auth.md, Agencies), or unset METRIKA_PROFILE."
        ),
        (
            ConfigError.badCounterVariable(value: "12,x"),
            "METRIKA_COUNTER '12,x' is not a counter id (a positive whole number, or several joined by commas); fix or "
                + "unset it."
        ),
        (
            ConfigError.unjudgeableAlertMetric(name: "bounceRate"),
            "\"metrics\" of \"alerts\" in the config file names 'bounceRate', which is not a metric metrika alert can "
                + "judge (a count such as visits, pageviews, users, purchases or goal123reaches, or revenue)"
        ),
        (
            ServicesError.noHistoryOffline(path: "/h.sqlite"),
            "no history yet at /h.sqlite: --offline reads only the history. Fill it with `metrika sync --counter ID` "
                + "(or run without --offline), then try again."
        )
    ]

    /// A profile named on the command line: the selector is the caller's data, and the fix names it.
    @Test func aProfileSelectedByAnOptionIsChangedByThatOption() {
        let error = ConfigError.unknownProfile(name: "acme", selector: "--profile", path: "/c/config.json", known: nil)
        #expect(
            ParameterNaming.cli.message(of: error) == "--profile names the profile 'acme', but there is no "
                + "config file /c/config.json. Define it there as {\"profiles\": {\"acme\": {…}}} (see docs/auth.md), "
                + "or name another profile with --profile.")
    }

    @Test func theCommandLineSaysWhatItAlwaysSaid() {
        for (failure, cli) in Self.cases {
            #expect(ParameterNaming.cli.message(of: failure) == cli)
        }
    }

    @Test func anAccessErrorNamesItsCounterOnTheErrorLine() {
        #expect(
            APIError.accessDenied("Access is denied.", counterID: 1003).messageNamingCounter(.cli)
                == "Access denied to counter 1003: Access is denied. Check the counter id, or sign in as an account "
                + "that can view it (`metrika login`).")
    }

    /// The plain message (tests, logs, a neutral entry point) names no command, option or variable.
    @Test func theNeutralWordsNameNoCommandLine() {
        for (failure, _) in Self.cases {
            let text = failure.message
            // (A variable a failure is about is its data: `The token in METRIKA_TOKEN holds …`.)
            #expect(!text.contains("metrika login") && !text.contains("metrika sync"), "\(text)")
            #expect(
                !["METRIKA_DB", "METRIKA_API_URL", "METRIKA_CLICKHOUSE_USER"].contains { text.contains($0) }, "\(text)")
            #expect(!text.contains(" --") && !text.hasPrefix("--"), "\(text)")
        }
    }

    /// An error's fix is data a caller can match, not a sentence to search.
    @Test func theFixIsData() {
        #expect(AuthError.notSignedIn.fix == .signIn)
        #expect(APIError.queryTooComplicated("x").fix == .narrowQuery)
        #expect(APIError.accessDenied("x", counterID: 1).fix == .signInAsViewer)
        #expect(StoreError(.notADatabase, path: "/h").fix == .chooseAnotherDatabase)
        #expect(StoreError(.sqlite(code: 1), path: "/h").fix == nil)
        #expect(StoreError(.full, path: "/h").problem == "the history database /h is full")
    }
}
