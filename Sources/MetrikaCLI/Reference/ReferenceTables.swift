import MetrikaAPI
import MetrikaModel
import MetrikaSystem

/// The environment variables metrika reads and its exit codes: one table each, from which `metrika
/// --help`, the man page's ENVIRONMENT and EXIT STATUS, and a test (every `METRIKA_` name in the
/// sources is here, every name here is in README.md) are made. A new variable or code is one row here.
enum ReferenceTables {
    /// One or more variables that share a meaning.
    struct Variable {
        /// The names, as the code reads them (`METRIKA_CLIENT_ID`, `METRIKA_CLIENT_SECRET`).
        var names: [String]
        /// One or two sentences for the man page.
        var meaning: String

        init(_ names: String..., meaning: String) {
            self.names = names
            self.meaning = meaning
        }
    }

    /// Every variable metrika reads, in the order help lists them.
    static let environment: [Variable] = [
        Variable(
            "METRIKA_TOKEN",
            meaning:
                "OAuth token with the metrika:read scope (--token-file wins over it; the token file of metrika login is used when neither is given)."
        ),
        Variable(
            "METRIKA_CLIENT_ID", "METRIKA_CLIENT_SECRET",
            meaning:
                "Your OAuth app, for metrika login, token renewal and logout. Each is taken on its own, above the profile's and the config file's client_id/client_secret; the token file supplies the id of the app that issued it."
        ),
        Variable(
            "METRIKA_PROFILE",
            meaning:
                "The profile of the config file to use when --profile is not given; all, or NAME,NAME, runs over several logins, each counter read by the profile that owns it."
        ),
        Variable(
            "METRIKA_QUOTA_LEDGER",
            meaning:
                "on: every run counts its requests in the quota ledger of the history database (runs with a profile always do); off: none does."
        ),
        Variable(
            "METRIKA_COUNTER",
            meaning:
                "The counter(s) report, chart and mail use without --counter (wins over the profile's and the config file's); a comma-separated list of ids."
        ),
        Variable(
            "METRIKA_API_URL",
            meaning: "API base URL (default: the profile's api_url, else https://api-metrika.yandex.net)."),
        Variable("METRIKA_OAUTH_URL", meaning: "OAuth base URL (default https://oauth.yandex.ru)."),
        Variable(
            PlainHTTPPolicy.overrideVariable,
            meaning:
                "1 allows plain http:// to another machine for the API and OAuth URLs and a ClickHouse URL used with a password (test set-ups only). Without it such a URL is refused before any connection (exit 78); loopback (127.0.0.0/8, ::1, localhost) is always allowed."
        ),
        Variable(
            "METRIKA_DB",
            meaning:
                "The history database (default $XDG_DATA_HOME/metrika/metrika.sqlite); missing directories on its path are created, mode 0700."
        ),
        Variable("METRIKA_TIMEOUT", meaning: "Seconds one attempt of a request may take in all (default 30)."),
        Variable(
            "METRIKA_MAX_RESPONSE",
            meaning:
                "The largest API answer accepted, after decompression: bytes, or with K, M or G (default 64M); a larger one fails with exit 65."
        ),
        Variable(
            "METRIKA_SENDMAIL", meaning: "The sendmail program metrika mail pipes to (default /usr/sbin/sendmail)."),
        Variable(
            "METRIKA_SENDER",
            meaning:
                "The From address of metrika mail and metrika alert --mail when --sender is not given (default USER@host)."
        ),
        Variable(
            "METRIKA_WEBHOOK_URL",
            meaning:
                "The webhook metrika alert POSTs its alerts to when --webhook is not given. A secret: shown only as scheme://host/…, never passed to a program metrika starts."
        ),
        Variable(
            "METRIKA_TELEGRAM_TOKEN",
            meaning:
                "The Telegram bot's token from @BotFather (above the config file's \"telegram\" token and the keyring entry its \"keyring\" names). A secret: never shown, never an argument."
        ),
        Variable(
            "METRIKA_TELEGRAM_CHAT",
            meaning:
                "The chats metrika alert (and --today) sends to when --telegram is not given, CHAT[,CHAT…] (above the config file's \"telegram\" chat)."
        ),
        Variable(
            "METRIKA_TELEGRAM_API_URL",
            meaning: "The Telegram Bot API base (default https://api.telegram.org); plain http only to this machine."),
        Variable(
            RSVGConvertRasterizer.overrideVariable,
            meaning: "The rsvg-convert program that draws PNG charts, when it is not on PATH."),
        Variable(
            "METRIKA_CLICKHOUSE_URL",
            meaning:
                "The default --clickhouse URL of metrika logs and metrika sync (above the config file's clickhouse_url); URL1,URL2,… names one URL per shard of a cluster."
        ),
        Variable(
            "METRIKA_CLICKHOUSE_CLUSTER",
            meaning:
                "The default --cluster of metrika logs and metrika sync (above the config file's clickhouse_cluster): the sharded ClickHouse's cluster name in remote_servers."
        ),
        Variable(
            "METRIKA_CLICKHOUSE_USER", "METRIKA_CLICKHOUSE_PASSWORD",
            meaning: "ClickHouse user and password (never on the command line)."),
        Variable(
            "METRIKA_LOGS_POLL",
            meaning:
                "Seconds of the first wait between Logs API request polls (default 10, growing 1.5 times to 5 minutes)."
        ),
        Variable(
            "METRIKA_NOW", meaning: "Pretend it is this instant (2026-11-29T12:00:00Z): reproducible reports and tests."
        ),
        Variable(
            "METRIKA_DB_MAX_PAGES",
            meaning:
                "For tests: caps the history database at this many pages (SQLite's max_page_count), so writes fail as on a full disk."
        ),
        Variable(
            "NO_COLOR",
            meaning:
                "When set and not empty, nothing is coloured. Otherwise, on a terminal only (and not with TERM=dumb), the Error: and Warning: labels on standard error are red and yellow; pipes and files never get colour."
        ),
        Variable(
            "XDG_CONFIG_HOME", "XDG_DATA_HOME",
            meaning:
                "Where the token file and config file (XDG_CONFIG_HOME/metrika) and the history (XDG_DATA_HOME/metrika) live."
        ),
        Variable(
            "https_proxy", "http_proxy", "all_proxy", "no_proxy",
            meaning: "A proxy for the API, the OAuth server and ClickHouse, read by libcurl as curl reads them.")
    ]

    /// `METRIKA_` names in the sources that are not the client's settings: said here so the test
    /// that holds the table complete can tell them from a forgotten row.
    static let notSettings: [String: String] = [
        "METRIKA_RECORD_GOLDEN": "re-records golden files in a test run",
        "METRIKA_FAKE_FIXTURES": "the simulator's fixture directory (docs/simulator.md)",
        "METRIKA_BIN_DIR": "where the end-to-end tests find the built binaries",
        "METRIKA_TEST_RETRY_SCALE":
            "shortens the built binary's real waits in the end-to-end tests (docs/reliability.md)",
        "METRIKA_TEST_PACE_SCALE":
            "shortens the Telegram pace against the loopback Bot API simulator in the drills (docs/reliability.md)"
    ]

    /// An exit code: a few words for `--help`, a sentence for the man page.
    struct Exit {
        var code: Int32
        var short: String
        var meaning: String
    }

    /// Every exit code metrika uses, in the order help lists them.
    static let exitCodes: [Exit] = [
        Exit(code: ExitCode.ok, short: "ok", meaning: "Success."),
        Exit(
            code: ExitCode.usage, short: "usage",
            meaning: "Usage error: unknown command or option, bad date, unknown metric, an option that does not apply."),
        Exit(
            code: ExitCode.dataError, short: "unreadable API answer",
            meaning: "The API answered something unreadable; ClickHouse rejected a statement or the data."),
        Exit(
            code: ExitCode.unavailable, short: "API unavailable",
            meaning:
                "The API, the OAuth server or the network was unavailable after retries; ClickHouse unreachable; the system keyring could not be used."
        ),
        Exit(
            code: ExitCode.cannotCreate, short: "cannot create output",
            meaning: "An output file (or the token file) could not be created."),
        Exit(
            code: ExitCode.ioError, short: "cannot write output (e.g. a full disk)",
            meaning:
                "The output could not be written: standard output or an --output file on a full disk (or a device error), a closed descriptor; metrika sync with the history's disk full (a report still prints what it fetched, with a warning, exit 0)."
        ),
        Exit(
            code: ExitCode.tryLater, short: "quota exceeded (try later)",
            meaning: "A quota is exceeded: try later (the message says when a daily quota resets)."),
        Exit(
            code: ExitCode.noPermission, short: "not signed in or access denied",
            meaning: "Not signed in, token invalid, or access denied."),
        Exit(
            code: ExitCode.config, short: "configuration",
            meaning:
                "Bad configuration: a bad METRIKA_ variable, plain http to another machine, a malformed or unreadable config file or an unknown profile, the app's credentials missing or refused, a history database that is unusable or cannot be created."
        ),
        Exit(
            code: AuthError.cancelledExitCode, short: "stopped by Ctrl-C (other signals: 128 + the signal)",
            meaning:
                "metrika login cancelled with Ctrl-C (128 + SIGINT); metrika logs stopped by Ctrl-C or a signal, and metrika live by a signal sent to it, end with 128 + the signal: 130 SIGINT, 143 SIGTERM, 129 SIGHUP (live leaves the terminal as it was, logs keeps what it loaded). Ctrl-C typed in live's full screen is its quit key, like q: exit 0."
        ),
        Exit(
            code: ExitCode.closedPipe,
            short: "quiet end when the reader of stdout goes away (like cat in a pipe to head)",
            meaning:
                "Standard output's reader went away (metrika report | head): a quiet end without a message, the status a shell shows for cat or grep in the same place."
        ),
        Exit(code: ExitCode.failure, short: "other", meaning: "Anything else.")
    ]

    /// Every variable name, in order.
    static var variableNames: [String] { environment.flatMap(\.names) }

    /// `Environment: A, B, …` and `Exit codes: 0 ok, …` for `metrika --help`, wrapped at `width`.
    static func helpParagraphs(width: Int = 100) -> String {
        wrap("Environment: " + variableNames.joined(separator: ", ") + ".", width: width) + "\n"
            + wrap(
                "Exit codes: " + exitCodes.map { "\($0.code) \($0.short)" }.joined(separator: ", ") + ".", width: width)
            + "\n"
    }

    /// Words joined into lines of at most `width` characters.
    static func wrap(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
