import Testing

@testable import MetrikaModel
@testable import MetrikaUseCases

/// A failed delivery's note is one sentence: the failure's own full stop is dropped before "; kept in
/// the outbox" (a newcomer read `…added the bot to the group.; the alerts …`).
struct UntoldNoteTests {
    @Test func theFailuresFullStopIsDropped() {
        #expect(
            OutboxDelivery.sentence(
                "Telegram chat -100 was not found: check that someone added the bot to the group.")
                == "Telegram chat -100 was not found: check that someone added the bot to the group")
        #expect(OutboxDelivery.sentence("no stop") == "no stop")
    }
}
