import Testing

@testable import MetrikaModel
@testable import MetrikaUseCases

/// A failed delivery's note is one sentence: the failure's own full stop is dropped before "; the
/// alerts will be told again" (a newcomer read `…added the bot to the group.; the alerts …`).
struct UntoldNoteTests {
    struct Failure: MetrikaFailure {
        var exitCode: Int32 { ExitCode.unavailable }
        var message: String
    }

    struct Deliverer: AlertDeliverer {
        func deliver(_ findings: AlertRun.Findings) async throws {}
    }

    @Test func theFailuresFullStopIsDropped() {
        let note = Deliverer().untoldNote(
            Failure(message: "Telegram chat -100 was not found: check that someone added the bot to the group."))
        #expect(
            note
                == "Error: Telegram chat -100 was not found: check that someone added the bot to the group; the alerts will be told again on the next run"
        )
        #expect(
            Deliverer().untoldNote(Failure(message: "no stop"))
                == "Error: no stop; the alerts will be told again on the next run")
    }
}
