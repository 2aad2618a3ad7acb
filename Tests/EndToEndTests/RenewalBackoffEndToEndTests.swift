import Foundation
import MetrikaAPI
import MetrikaTestSupport
import Testing

/// Issue 45 target 11, a failed renewal across processes: the back-off was per process, so 3
/// processes started together after a failed renewal (a wrong client secret, a token due) each sent
/// a refresh request and each warned, and so did every hourly run. Now the failure is kept beside the
/// token file (`token.json.renewal`, 0600, no token in it): one request, one warning with the day
/// the token expires; an hour later one process tries again, and nobody says it again that day.
@Suite("A failed renewal, across processes", .serialized, .blockingLanes)
struct RenewalBackoffEndToEndTests {
    @Test func threeProcessesAfterAFailedRenewalAskOnceAndSayItOnce() throws {
        let api = try FakeAPI(arguments: [])
        let home = try TemporaryDirectory()
        let tokenPath = home.path + "/config/metrika/token.json"
        let expires = TestClock.date.addingTimeInterval(5 * 86_400 + 3600)
        try TokenFile(path: tokenPath).write(
            StoredToken(
                accessToken: demoToken, refreshToken: "some-refresh", obtainedAt: TestClock.date, expiresAt: expires,
                clientID: "demo-client"), tightenDirectory: true)
        func round(at now: String) throws -> [ProcessResult] {
            let environment = metrikaEnvironment(
                api: api, home: home.path, token: nil,
                extra: [
                    "METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "wrong-secret", "METRIKA_NOW": now
                ])
            let running = try (0..<3).map { _ in try RunningMetrika.start(["counters"], environment: environment) }
            return running.map { $0.wait() }
        }
        func warnings(_ results: [ProcessResult]) -> [String] {
            results.flatMap { $0.stderr.split(separator: "\n").map(String.init) }.filter {
                $0.contains("could not be renewed")
            }
        }

        let first = try round(at: TestClock.now)
        #expect(first.map(\.status) == [0, 0, 0], "\(first.map(\.stderr))")
        #expect(try api.requestCount(pathPrefix: "/token") == 1, "each process asked")
        let said = warnings(first)
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.contains("expires on \(StoredToken.day(expires))") == true, "\(said)")

        let mark = tokenPath + ".renewal"
        let mode = (try FileManager.default.attributesOfItem(atPath: mark)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let kept = try String(contentsOfFile: mark, encoding: .utf8)
        #expect(!kept.contains("some-refresh") && !kept.contains(demoToken), "a token in \(mark)")

        // An hour later (an hourly cron): one process tries again, none says it again.
        let later = try round(at: "2026-12-02T10:00:00Z")
        #expect(later.map(\.status) == [0, 0, 0], "\(later.map(\.stderr))")
        #expect(try api.requestCount(pathPrefix: "/token") == 2, "each process asked again")
        #expect(warnings(later).isEmpty, "\(warnings(later))")
    }

    /// Issue 45: 2 processes × 3 calls with a token due sent 5–6 refresh requests, and against an
    /// OAuth server that rotates refresh tokens (the simulator does) all but one failed. Now 3
    /// processes started together send one, and all 3 work with the renewed token.
    @Test func threeProcessesWithATokenDueRenewItOnce() throws {
        let api = try FakeAPI(arguments: ["--device-interval", "1", "--device-pending", "0"])
        let home = try TemporaryDirectory()
        let tokenPath = home.path + "/config/metrika/token.json"
        let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]
        let environment = metrikaEnvironment(api: api, home: home.path, token: nil, extra: app)
        let login = try metrika(["login"], environment: environment, timeout: 60)
        #expect(login.status == 0, "\(login.stderr)")
        var stored = try TokenFile(path: tokenPath).read()
        stored.expiresAt = TestClock.date.addingTimeInterval(10 * 86_400)
        try TokenFile(path: tokenPath).write(stored)
        let before = try api.requestCount(pathPrefix: "/token")
        let results = try (0..<3).map { _ in try RunningMetrika.start(["counters"], environment: environment) }
            .map { $0.wait() }
        #expect(results.map(\.status) == [0, 0, 0], "\(results.map(\.stderr))")
        #expect(try api.requestCount(pathPrefix: "/token") - before == 1, "refresh requests")
        #expect(try TokenFile(path: tokenPath).read().accessToken != stored.accessToken)
    }
}
