// An error below the entry points says what is wrong and carries, as data, what would fix it: the
// parameter at fault (`Parameter`) and the action that fixes it (`SuggestedAction`). It never says how
// one entry point spells them. Each entry point words them with its own `ParameterNaming` — the CLI
// says `--from` and `metrika login`, the MCP server `from` and what to ask the user, a chat bot its
// commands — so no entry point rewords another's sentence.

/// A parameter by its neutral name (camelCase words: `from`, `unsettledDays`), not by how any entry
/// point spells it.
package struct Parameter: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let name: String

    package init(_ name: String) { self.name = name }
    package init(stringLiteral name: String) { self.name = name }

    /// The name's words in lower case (`unsettledDays` → unsettled, days): what entry points join.
    package var words: [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character.isUppercase, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(Character(character.lowercased()))
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    package var description: String { name }
}

/// How one entry point names parameters and the actions it suggests in its error sentences.
package struct ParameterNaming: Sendable {
    /// The parameter as this entry point spells it (`--from`, `from`).
    package let name: @Sendable (Parameter) -> String
    /// What this entry point offers to do (`metrika sync --counter 1001`, `call get_report …`).
    package let action: @Sendable (SuggestedAction) -> String

    package init(
        name: @escaping @Sendable (Parameter) -> String,
        action: @escaping @Sendable (SuggestedAction) -> String
    ) {
        self.name = name
        self.action = action
    }

    package subscript(_ parameter: Parameter) -> String { name(parameter) }

    /// Several parameters as alternatives (`--from/--to`).
    package func alternatives(_ parameters: Parameter...) -> String { parameters.map(name).joined(separator: "/") }

    /// Plain names, for a message outside any entry point (a warning's reason, a log line, a test).
    package static let neutral = ParameterNaming(name: { $0.name }, action: { $0.neutralText })

    /// The message of any failure as this entry point words it.
    package func message(of failure: any MetrikaFailure) -> String {
        (failure as? any WordedFailure)?.message(self) ?? failure.message
    }

    /// The words for `error` inside another sentence (a warning's reason), as this entry point words
    /// it: a `MetrikaFailure`'s message, else "an unexpected error", never the value's description.
    package func reason(_ error: any Error) -> String {
        (error as? any MetrikaFailure).map(message(of:)) ?? "an unexpected error"
    }
}

/// A failure whose sentence names parameters or actions: each entry point words it
/// (`message(naming)`); the plain `message` uses neutral names.
package protocol WordedFailure: MetrikaFailure {
    func message(_ naming: ParameterNaming) -> String
}

extension WordedFailure {
    package var message: String { message(.neutral) }
}

/// An action an error sentence may suggest, worded by the entry point: each case is a whole clause
/// (or sentence) of the error's message, so an entry point can say it in its own terms.
package enum SuggestedAction: Sendable, Equatable {
    /// Fill the history with counter `counterID`'s days (sync, or a report that may fetch).
    case sync(counterID: Int)
    /// Free the log requests kept on the server for counter `counterID`.
    case cleanLogs(counterID: Int)
    /// See today so far against the same hours of earlier weeks.
    case watchToday(counterID: Int)
    /// Ask the same report again with the network, so that what the history lacks is fetched (an
    /// offline report's missing days or metrics).
    case fetchOnline
    /// Explain counter `counterID`'s change against other days (its baseline had nothing).
    case compareOtherDays(counterID: Int)
    /// An offline run found no history: fill it (or run with the network), then try again (a sentence).
    case fillHistoryFirst
    /// What runs the alert check (a noun phrase: the command or tool that does).
    case alertCheck

    // Signing in.
    /// No token at all: sign in (or give a token).
    case signIn
    /// The API did not take the request as signed in: sign in, or give a token.
    case signInOrGiveToken
    /// The token is wrong, expired or revoked (or the OAuth grant is): sign in again.
    case signInAgain
    /// The token may not read a counter: check the counter, or sign in as an account that can.
    case signInAsViewer
    /// The token file cannot be used: sign in to write a new one.
    case replaceTokenFile
    /// The token file belongs to another user: sign in to write one's own.
    case replaceForeignTokenFile
    /// The token file at `path` is readable by others: make it private, or sign in anew.
    case protectTokenFile(path: String)
    /// The token from `source` (METRIKA_TOKEN or a token file) holds characters no token has.
    case fixToken(source: String)
    /// Profile `profile` was never signed in to.
    case signInProfile(String)
    /// The token file points to a keyring entry that is not there.
    case signInToKeyring
    /// The keyring's entry holds no stored token: sign in into the keyring again.
    case storeInKeyringAgain
    /// No keyring tool: keep the token in its private file instead (a clause).
    case keepTokenInFile
    /// The token file's token expired and was not renewed: sign in again.
    case signInAfterExpiry
    /// The token file's token expires soon and was not renewed: sign in to renew it.
    case renewToken
    /// No OAuth app is known to renew the token: give its client id and secret.
    case giveAppCredentials
    /// The OAuth app is known, its secret is not: give it.
    case giveAppSecret
    /// Device login needs the OAuth app's client id.
    case giveClientID
    /// Device login needs the OAuth app's client secret.
    case giveClientSecret
    /// A token on standard input was asked for and none came.
    case pipeToken
    /// The device code expired before the sign-in was confirmed.
    case signInSooner
    /// The sign-in was refused on the confirmation page.
    case retrySignIn
    /// The OAuth app's client id or secret was rejected.
    case checkClientCredentials
    /// The OAuth server refused with another code.
    case retrySignInThenDetails

    // The API and the way to it.
    /// The query is too heavy: fewer days, a lower accuracy.
    case narrowQuery
    /// The service cannot be reached: the network, its address, later.
    case checkConnection(Service)
    /// An answer that cannot be read: once more, then report it.
    case retryThenReport
    /// The API's address led to a redirect: check it, or the proxy.
    case checkAPIAddress
    /// An answer larger than the limit: raise the limit if that is real.
    case raiseResponseLimit
    /// The TLS handshake failed: the address, the clock, the certificates, a proxy.
    case checkTLS
    /// metrika stopped on an error it does not expect: details, and a report.
    case reportUnexpected

    // The history database.
    /// What fills the history database (a noun phrase: "metrika sync" at the shell).
    case fillHistory
    /// What creates the history database (a noun phrase: the commands that do).
    case createHistory
    /// A day before 2008 was asked for by a relative date: the clock may be wrong.
    case checkClock
    /// The file is not metrika's database: move it away or use another database.
    case chooseAnotherDatabase
    /// The database is damaged: restore a backup, or use another database and rebuild the history.
    case restoreDatabase
    /// A newer metrika wrote the database: upgrade, or use another database.
    case upgradeForDatabase
    /// The database cannot be created: its directory, or another database.
    case checkDatabaseDirectory
    /// The database cannot be written: make it writable, or use another database.
    case makeDatabaseWritable
    /// The database's disk is full: free space, or use another database.
    case freeDatabaseDisk

    // ClickHouse and Telegram.
    /// The ClickHouse user and password go in the environment, never in the URL.
    case giveClickHouseCredentials
    /// Telegram does not know the bot token: check the one @BotFather gave.
    case checkTelegramToken
    /// What sends to Telegram (a noun phrase: the option and command that do).
    case useTelegram
    /// No Telegram bot token was given: give it in the environment, the private config file at
    /// `configPath`, or the keyring (a clause).
    case giveTelegramToken(configPath: String)
    /// The Bot API's address led somewhere else: check the setting.
    case checkTelegramAddress

    /// A service metrika talks to.
    package enum Service: Sendable, Equatable {
        /// The Metrika API.
        case api
        /// The OAuth server.
        case oauth
    }

    /// Words that name no entry point: what to do, without a command, an option or a tool.
    var neutralText: String {
        switch self {
        case .sync(let id): return "sync counter \(id) (or run the report online)"
        case .cleanLogs(let id): return "clean all log requests of counter \(id)"
        case .watchToday(let id): return "see today against the same hours of earlier weeks (counter \(id))"
        case .fetchOnline: return "run the report online to fetch it"
        case .compareOtherDays: return "compare with other days (against)"
        case .fillHistoryFirst: return "Fill it (or run the report online), then try again."
        case .alertCheck: return "the alert check"
        case .signIn, .signInOrGiveToken, .signInAgain, .replaceTokenFile, .replaceForeignTokenFile,
            .signInToKeyring, .storeInKeyringAgain, .signInSooner, .retrySignIn, .retrySignInThenDetails:
            return "Sign in to Yandex.Metrika again."
        case .signInAsViewer: return "Check the counter id, or sign in as an account that can view it."
        case .keepTokenInFile: return "keep the token in its private file"
        case .protectTokenFile(let path): return "Make \(path) private (mode 0600), or sign in again."
        case .fixToken(let source): return "Give \(source) the token alone, on one line."
        case .signInProfile(let name): return "Sign in to Yandex.Metrika for profile '\(name)'."
        case .signInAfterExpiry: return "Sign in to Yandex.Metrika again."
        case .renewToken: return "Sign in to Yandex.Metrika again to renew it."
        case .giveAppCredentials: return "give the OAuth app's client id and secret (docs/auth.md)"
        case .giveAppSecret: return "give the OAuth app's client secret (docs/auth.md)"
        case .fillHistory: return "a sync of the history"
        case .createHistory: return "a sync or a report"
        case .checkClock: return "is the clock right?"
        case .giveClientID: return "Give the OAuth app's client id (docs/auth.md)."
        case .giveClientSecret: return "Give the OAuth app's client secret (docs/auth.md)."
        case .pipeToken: return "Give the token on standard input."
        case .checkClientCredentials: return "Check the OAuth app's client id and secret."
        case .narrowQuery: return "Ask for fewer days or a lower accuracy."
        case .checkConnection(.api): return "Check the network and the API's address, and try again later."
        case .checkConnection(.oauth): return "Check the network and the OAuth server's address, and try again later."
        case .retryThenReport: return "Try again; if it persists, report it."
        case .checkAPIAddress: return "Check the API's address (it must be the API's own) or the proxy in between."
        case .raiseResponseLimit: return "If the API really sends that much, raise the answer size limit."
        case .checkTLS:
            return
                "Check the API's address, the system clock and the CA certificates, or a proxy that intercepts HTTPS."
        case .reportUnexpected: return "Try again; if it fails again, report it."
        case .chooseAnotherDatabase: return "move it away or use another history database"
        case .restoreDatabase: return "restore a backup, or use another history database and fill it again"
        case .upgradeForDatabase: return "upgrade metrika, or use another history database"
        case .checkDatabaseDirectory: return "check the directory and its permissions, or use another history database"
        case .makeDatabaseWritable:
            return "make it (and its directory) writable for this user, or use another history database"
        case .freeDatabaseDisk: return "free space on its disk, or use another history database"
        case .giveClickHouseCredentials: return "give the ClickHouse user and password apart from the URL."
        case .checkTelegramToken: return "check the token @BotFather gave."
        case .useTelegram: return "Telegram delivery and the bot"
        case .giveTelegramToken(let path):
            return "give it in the environment, in the private config file \(path), or in the keyring "
                + "(docs/telegram.md)"
        case .checkTelegramAddress: return "check the Bot API's address."
        }
    }
}

extension Parameter {
    // The parameters of a report (and of its chart and mail), and the dates' and logs' others.
    package static let counter: Parameter = "counter"
    package static let from: Parameter = "from"
    package static let to: Parameter = "to"
    package static let period: Parameter = "period"
    package static let group: Parameter = "group"
    package static let metrics: Parameter = "metrics"
    package static let dimensions: Parameter = "dimensions"
    package static let preset: Parameter = "preset"
    package static let filters: Parameter = "filters"
    package static let sort: Parameter = "sort"
    package static let limit: Parameter = "limit"
    package static let lang: Parameter = "lang"
    package static let accuracy: Parameter = "accuracy"
    package static let currency: Parameter = "currency"
    package static let attribution: Parameter = "attribution"
    package static let offline: Parameter = "offline"
    package static let refresh: Parameter = "refresh"
    package static let raw: Parameter = "raw"
    package static let compare: Parameter = "compare"
    package static let unsettledDays: Parameter = "unsettledDays"
    package static let fields: Parameter = "fields"
    package static let last: Parameter = "last"
    // Where logs and the history mirror are loaded.
    package static let clickhouse: Parameter = "clickhouse"
    package static let table: Parameter = "table"
    package static let cluster: Parameter = "cluster"
    package static let output: Parameter = "output"
    package static let format: Parameter = "format"
}
