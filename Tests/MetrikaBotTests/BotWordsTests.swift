import Testing

@testable import MetrikaBot
@testable import MetrikaModel
@testable import MetrikaUseCases

/// A baseline without visits is said in the bot's words: it points to /report, never to an option
/// it does not have.
@Suite struct BotExplainBaselineWordsTests {
    let error = ExplainBaselineError(
        counterID: 530001,
        baseline: "the same weekday of the 4 weeks before: 2026-11-02, 2026-11-09, 2026-11-16, 2026-11-23",
        metric: "bounce rate")

    @Test func theBotSaysWhatTheChatCanDo() {
        let text = ParameterNaming.bot.message(of: error)
        #expect(
            text
                == "there were no visits in the baseline (the same weekday of the 4 weeks before: 2026-11-02, 2026-11-09, 2026-11-16, 2026-11-23): bounce rate had no value to compare with, so its change cannot be explained; /explain compares yesterday with those weekdays only: see the counter's recent days with /report 530001 last30days"
        )
        #expect(!text.contains("against") && !text.contains("--"))
        #expect(error.exitCode == ExitCode.dataError)
    }
}
