import MetrikaModel
import Testing

/// The neutral words of every action (a message outside any entry point) name no command line: no
/// `metrika <command>`, no `--flag`, no environment variable.
@Suite struct WordingTests {
    static let actions: [SuggestedAction] = [
        .sync(counterID: 1), .cleanLogs(counterID: 1), .watchToday(counterID: 1), .fetchOnline,
        .compareOtherDays(counterID: 1),
        .signIn, .signInOrGiveToken, .signInAgain, .signInAsViewer, .replaceTokenFile, .replaceForeignTokenFile,
        .protectTokenFile(path: "/t.json"), .fixToken(source: "the token file"), .signInProfile("work"),
        .signInToKeyring,
        .storeInKeyringAgain, .keepTokenInFile, .signInAfterExpiry, .renewToken, .giveAppCredentials, .giveAppSecret,
        .giveClientID,
        .giveClientSecret, .pipeToken,
        .signInSooner, .retrySignIn, .checkClientCredentials, .retrySignInThenDetails, .narrowQuery,
        .checkConnection(.api),
        .checkConnection(.oauth), .retryThenReport, .checkAPIAddress, .raiseResponseLimit, .checkTLS, .reportUnexpected,
        .fillHistory, .createHistory, .checkClock, .chooseAnotherDatabase, .restoreDatabase, .upgradeForDatabase,
        .checkDatabaseDirectory, .makeDatabaseWritable, .freeDatabaseDisk, .giveClickHouseCredentials,
        .checkTelegramToken,
        .checkTelegramAddress
    ]

    @Test func neutralWordsNameNoCommandLine() {
        for action in Self.actions {
            let text = ParameterNaming.neutral.action(action)
            #expect(!text.isEmpty)
            #expect(!text.contains("metrika ") && !text.contains("--") && !text.contains("METRIKA_"), "\(text)")
        }
    }

    @Test func parametersAreNamedByTheNaming() {
        let dashed = ParameterNaming(name: { "--" + $0.words.joined(separator: "-") }, action: { _ in "" })
        #expect(dashed[.unsettledDays] == "--unsettled-days")
        #expect(ParameterNaming.neutral[.unsettledDays] == "unsettledDays")
        #expect(dashed.alternatives(.from, .to) == "--from/--to")
    }
}
