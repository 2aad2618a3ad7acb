import Foundation
import MetrikaTestSupport
import Testing

/// Issue 45 target 7 against the simulator and the built binary: the hourly check tells 520008's
/// stop at 14:00 on Tuesday at 17:05; the daily check on Wednesday at 07:00 told it again as a new
/// drop (and `--status` listed two). Now it tells one line that goes on with the same story, once
/// (a second run tells nothing), and `--status` lists the hourly alerts alone.
@Suite("One outage, one story across the grains", .serialized, .blockingLanes)
struct OneStoryEndToEndTests {
    @Test func theDailyCheckContinuesTheOpenHourlyAlertOnce() throws {
        let tuesday = "2026-12-01T14:05:00Z"
        let wednesday = "2026-12-02T04:00:00Z"
        let api = try FakeAPI(fixtures: "alerts", arguments: ["--now", tuesday])
        let home = try TemporaryDirectory()
        func run(_ arguments: [String], at now: String) throws -> ProcessResult {
            try metrika(
                ["alert"] + arguments,
                environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": now]))
        }
        let hourly = try run(["--today", "--counter", "520008"], at: tuesday)
        #expect(
            hourly.status == 0 && hourly.stdout.contains("visits stopped at 14:00 on Tue 2026-12-01"),
            "\(hourly.stdout)")
        try api.setClock(wednesday)
        let daily = try run(["--counter", "520008"], at: wednesday)
        #expect(daily.status == 0, "\(daily.stderr)")
        #expect(
            daily.stdoutLines == [
                "520008 Магазин «До обеда»: visits still stopped since 14:00 on Tue 2026-12-01: 1 276 of ~2 900 that day (-55%)"
            ], "\(daily.stdout)")
        let again = try run(["--counter", "520008"], at: wednesday)
        #expect(again.status == 0 && again.stdout.isEmpty, "told twice: \(again.stdout)")
        let status = try run(["--status"], at: wednesday)
        #expect(status.stdoutLines.filter { $0.contains("(hourly)") }.count == 2, "\(status.stdout)")
        #expect(!status.stdoutLines.contains { $0.contains(" drop ") || $0.contains(" stopped  ") }, "\(status.stdout)")
    }
}
