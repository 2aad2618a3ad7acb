import MetrikaAPI
import MetrikaBot
import MetrikaModel
import MetrikaServices
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases
import MetrikaWarehouse
import Testing

@testable import MetrikaMCP

/// The failures below the entry points, worded by the MCP server (argument names,
/// what to ask the user) and by the bot (its commands) — never the command line's `metrika login`
/// or a `--flag`; and no sentence made by cutting another.
@Suite struct FailureWordsMCPTests {
    static let failures: [any MetrikaFailure] = [
        AuthError.notSignedIn,
        AuthError.notSignedInProfile(name: "work", path: "/c/work.json"),
        AuthError.malformedToken(source: "token file /t.json", problem: "a line break"),
        APIError.invalidToken,
        APIError.unauthorized("no token"),
        APIError.queryTooComplicated("Query is too complicated"),
        APIError.accessDenied("Access is denied.", counterID: 1003),
        APIError.unavailable("timed out"),
        APIError.unreadable("not JSON"),
        APIError.tooLarge(path: "/stat/v1/data", limit: 1 << 26),
        OAuthError.invalidGrant("revoked"),
        StoreError(.notADatabase, path: "/h.sqlite", detail: "file is not a database"),
        StoreError(.corrupt, path: "/h.sqlite"),
        StoreError(.readOnly, path: "/h.sqlite"),
        StoreError(.full, path: "/h.sqlite", detail: "disk I/O error"),
        ClickHouseError.unsupportedEngine(table: "metrika.visits", engine: "Log"),
        ClickHouseError.notAURL(shown: "ftp://x"),
        LogExportError.noRoom(counterID: 1001, maxDays: 0),
        UnexpectedFailure(typeName: "X"),
        ConfigError.missingTelegramToken(path: "/c/config.json"),
        ConfigError.unjudgeableAlertMetric(name: "bounceRate"),
        ServicesError.noHistoryOffline(path: "/h.sqlite")
    ]

    /// The failures whose fixes were the CLI's words below the edge, in MCP's and the bot's.
    @Test func theSettingsFailuresSayTheirFixInEachEntryPointsWords() {
        #expect(
            Self.mcpWords(ConfigError.unjudgeableAlertMetric(name: "bounceRate"))
                .contains("which is not a metric check_alerts can judge"))
        #expect(
            Self.mcpWords(ServicesError.noHistoryOffline(path: "/h.sqlite"))
                == "no history yet at /h.sqlite: offline reads only the history. Call get_report without offline to "
                + "fetch its days first.")
        #expect(
            Self.mcpWords(ConfigError.missingTelegramToken(path: "/c/config.json")) == "Telegram (Telegram "
                + "delivery) needs the bot's token from @BotFather: ask the user to give this server the bot's token on "
                + "the machine that runs it.")
        #expect(
            ParameterNaming.bot.message(of: ConfigError.missingTelegramToken(path: "/c/config.json"))
                == "Telegram (this bot) needs the bot's token from @BotFather: whoever runs the bot must give it the "
                + "token on its machine.")
        #expect(
            ParameterNaming.bot.message(of: ServicesError.noHistoryOffline(path: "/h.sqlite"))
                .hasSuffix("Ask again once whoever runs the bot has filled its history."))
        for failure in Self.failures.suffix(3) {
            for text in [Self.mcpWords(failure), ParameterNaming.bot.message(of: failure)] {
                #expect(ToolWordsTests.cliWords(text).isEmpty && !text.contains("METRIKA_TELEGRAM_TOKEN"), "\(text)")
            }
        }
    }

    /// What a tool answers for `failure`, as `MetrikaToolCatalogue` words a thrown failure.
    static func mcpWords(_ failure: any MetrikaFailure) -> String {
        MCPFailureWords.sentence(failure) ?? ParameterNaming.mcp.message(of: failure)
    }

    @Test func aModelReadsNoCommandLine() {
        for failure in Self.failures {
            let text = Self.mcpWords(failure)
            #expect(ToolWordsTests.cliWords(text).isEmpty, "\(text)")
            #expect(
                !text.contains("METRIKA_DB") && !text.contains("METRIKA_TOKEN") && !text.contains("METRIKA_API_URL"),
                "\(text)")
        }
    }

    @Test func theRepresentativeFailuresSayWhatToDoInTheToolsWords() {
        #expect(
            Self.mcpWords(AuthError.notSignedIn).contains(
                "ask the user to sign in to Yandex.Metrika again "
                    + "on the machine that runs this server"))
        #expect(
            Self.mcpWords(APIError.queryTooComplicated("x")).contains(
                "Ask for fewer days (from/to or period), fewer dimensions, or accuracy low."))
        #expect(
            Self.mcpWords(APIError.accessDenied("Access is denied.", counterID: 1003)).contains("call list_counters"))
        #expect(
            Self.mcpWords(StoreError(.full, path: "/h.sqlite", detail: "disk I/O error"))
                == "the history database /h.sqlite is full (disk I/O error). Ask the user to fix it on the machine "
                + "that runs this server; "
                + "meanwhile get_report's dimension reports (which do not use it) still work.")
        #expect(
            ParameterNaming.mcp.message(of: ClickHouseError.unsupportedEngine(table: "t", engine: "Log")).contains(
                "choose another table,"))
    }

    /// The store's problem is data: MCP's sentence is its problem and MCP's own fix, whatever the
    /// CLI's fix says after its dash.
    @Test func theStoresSentenceIsNotCutFromAnother() {
        let failure = StoreError(.corrupt, path: "/h.sqlite", detail: "malformed")
        #expect(Self.mcpWords(failure).hasPrefix(failure.problem + ". Ask the user"))
        #expect(!Self.mcpWords(failure).contains("—"))
    }

    @Test func theBotSaysItsOwnCommandsOrWhoMustAct() {
        for failure in Self.failures {
            let text = ParameterNaming.bot.message(of: failure)
            #expect(!text.contains("metrika login") && !text.contains("`metrika"), "\(text)")
            #expect(!text.contains(" --") && !text.contains("METRIKA_DB"), "\(text)")
        }
        #expect(
            ParameterNaming.bot.message(of: APIError.queryTooComplicated("x")).hasSuffix(
                "Ask for a shorter period, e.g. /report 1001 lastWeek."))
        #expect(
            ParameterNaming.bot.message(of: AuthError.notSignedIn).contains(
                "Whoever runs the bot must fix "
                    + "this on its machine"))
        #expect(
            ParameterNaming.bot.message(of: APIError.accessDenied("Access is denied.", counterID: 7)).contains(
                "/counters"))
        // What fills the history is the operator's business: the chat reads who, not a command line.
        for action in [SuggestedAction.sync(counterID: 7), .fetchOnline] {
            let text = ParameterNaming.bot.action(action)
            #expect(text.contains("whoever runs the bot") && !text.contains("metrika "), "\(text)")
        }
    }
}
