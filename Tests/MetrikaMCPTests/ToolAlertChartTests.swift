import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaSystem
import MetrikaTestSupport
import MetrikaUseCases
import Synchronization
import Testing

@testable import MetrikaMCP

/// `check_alerts` against the simulator's alert situations (docs/simulator.md, Fixtures/alerts) and
/// `draw_chart` against the default fixtures: one simulator each for the suite.
@Suite struct ToolAlertChartTests {
    /// The simulator's clock and metrika's: Monday 2026-11-30, judging Sunday 11-29.
    static let simulatorNow = RFC3339.parse("2026-12-01T06:00:00Z")!
    static let monday = RFC3339.parse("2026-11-30T06:00:00Z")!
    static let alerts = Result { try ToolSimulator(fixtures: "alerts", now: simulatorNow) }
    static let reports = Result { try ToolSimulator(now: monday) }
    /// Tuesday 2026-12-01 at 17:30 in Moscow: counter 520008 has recorded nothing since 14:00.
    static let tuesdayAfternoon = RFC3339.parse("2026-12-01T14:30:00Z")!
    static let hours = Result { try ToolSimulator(fixtures: "alerts", now: tuesdayAfternoon) }

    @Test func checkAlertsTodaySeesTheStopOfTheAfternoonAndRemembersNothing() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(
            try Self.hours.get(), database: folder.path + "/h.sqlite", now: Self.tuesdayAfternoon)
        let catalogue = MetrikaToolCatalogue(services: services)
        let arguments: [(String, JSONValue)] = [("counter_ids", ints([520008, 520001])), ("today", .bool(true))]
        let first = try await catalogue.call("check_alerts", arguments: arguments, activity: RecordedProgress())
        #expect(!first.isError, "\(first.text)")
        let findings = first.structuredContent?["findings"]?.items ?? []
        let stop = try #require(
            findings.first { $0["counter_id"]?.number == 520008 && $0["metric"]?.text == "ym:s:visits" },
            "\(first.text)")
        #expect(stop["notice"]?.text == "stopped")
        #expect(stop["day"]?.text == "2026-12-01")
        #expect(stop["hours"]?["from"]?.text == "14:00")
        // The same members as a day's finding: its grain, its drivers (a stop has none), the change
        // to one decimal as the webhook says it.
        #expect(stop["grain"]?.text == "hour" && stop["drivers"]?.items.isEmpty == true, "\(stop)")
        #expect(stop["change_percent"]?.number == -100)
        #expect(stop["value"]?.number == 0)
        #expect((stop["expected"]?.number ?? 0) > 0)
        #expect(!findings.contains { $0["counter_id"]?.number == 520001 }, "an ordinary Tuesday is no alert")
        #expect(first.structuredContent?["counters_checked"]?.number == 2)
        #expect(first.text.contains("520008 ") && first.text.contains("stopped at 14:00"), "\(first.text)")
        // Read-only: nothing claimed or recorded, so asking again tells the stop again.
        let again = try await catalogue.call("check_alerts", arguments: arguments, activity: RecordedProgress())
        #expect(again.structuredContent == first.structuredContent)
        // today and date together: one of them.
        let both = try await catalogue.call(
            "check_alerts", arguments: [("today", .bool(true)), ("date", .string("2026-11-30"))],
            activity: RecordedProgress())
        #expect(
            both.isError && both.text.hasPrefix("today judges today's hours and date a finished day"), "\(both.text)")
    }

    @Test func checkAlertsFindsWhatADryRunFindsAndAskingTwiceGivesTheSameAnswerAndRemembersNothing() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.alerts.get(), database: folder.path + "/h.sqlite", now: Self.monday)
        let catalogue = MetrikaToolCatalogue(services: services)
        let first = try await catalogue.call("check_alerts", arguments: [], activity: RecordedProgress())
        #expect(!first.isError, "\(first.text)")
        let findings = first.structuredContent?["findings"]?.items ?? []
        let found = Set(
            findings.compactMap { finding -> String? in
                guard let id = finding["counter_id"]?.number, let notice = finding["notice"]?.text else { return nil }
                return "\(Int(id)) \(notice)"
            })
        #expect(found.isSuperset(of: ["520002 stopped", "520004 rise", "520005 drop"]))
        #expect(!found.contains { $0.hasPrefix("520001 ") }, "a quiet Sunday is no alert")
        #expect(findings.allSatisfy { $0["day"] == .string("2026-11-29") })
        // The same judgement the dry run makes, worded as its lines.
        let loader = try services.historyLoader(offline: true)
        let counters = try await services.alertCounters([], loader: loader).counters
        let outcome = await AlertCheck(
            loader: loader, settings: AlertSettings(), activity: ToolActivity(now: services.now)
        ).run(counters: counters, explain: false)
        #expect(first.text.hasPrefix(outcome.findings.map { AlertText.line($0) + "\n" }.joined()))
        // Read-only: nothing marked as told, so the second answer is the first.
        for counter in counters {
            #expect(try await loader.store.openEpisodes(counterID: counter.id, grain: .day).isEmpty)
        }
        let again = try await catalogue.call("check_alerts", arguments: [], activity: RecordedProgress())
        #expect(again.structuredContent == first.structuredContent)
        #expect(again.text == first.text)
        for counter in counters {
            #expect(try await loader.store.openEpisodes(counterID: counter.id, grain: .day).isEmpty)
        }
        // The day named is the day judged.
        let named = try await catalogue.call(
            "check_alerts", arguments: [("counter_ids", ints([520005])), ("date", .string("2026-11-29"))],
            activity: RecordedProgress())
        #expect(named.structuredContent?["findings"]?.items.compactMap { $0["notice"]?.text } == ["drop"])
        let future = try await catalogue.call(
            "check_alerts", arguments: [("date", .string("2026-12-01"))], activity: RecordedProgress())
        #expect(future.isError && future.text.hasPrefix("date 2026-12-01 is not over yet for every counter asked"))
        // Monday 06:00 UTC is 09:00 in Moscow: Monday is not over there, so it is refused, never
        // answered with Sunday's judgement (review: "now" judged the day before the one asked).
        let today = try await catalogue.call(
            "check_alerts", arguments: [("counter_ids", ints([520005])), ("date", .string("2026-11-30"))],
            activity: RecordedProgress())
        #expect(today.isError && today.text.hasPrefix("date 2026-11-30 is not over yet"))
        let bad = try await catalogue.call(
            "check_alerts", arguments: [("date", .string("Sunday"))], activity: RecordedProgress())
        #expect(bad.isError && bad.text == "date must be a day as YYYY-MM-DD (the day to judge), not 'Sunday'")
    }

    @Test func aCounterThatCannotBeReadIsAFailureAmongTheOthersAndAloneAnError() async throws {
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.reports.get(), database: folder.path + "/h.sqlite", now: Self.monday)
        let alone = try await MetrikaToolCatalogue(services: services).call(
            "check_alerts", arguments: [("counter_ids", ints([9999]))], activity: RecordedProgress())
        #expect(alone.isError)
        #expect(alone.text.hasPrefix("Error: counter 9999: "))
    }

    @Test func drawChartIsThePNGOfChartWithASummary() async throws {
        try ToolCheck.require("rsvg-convert", package: "librsvg2-bin")
        let folder = try TemporaryFolder()
        let services = TestServices(try Self.reports.get(), database: folder.path + "/h.sqlite", now: Self.monday)
        let result = try await MetrikaToolCatalogue(services: services).call(
            "draw_chart",
            arguments: [
                ("counter_ids", ints([1001, 1003])), ("metrics", strings(["visits"])), ("from", .string("2026-10-01")),
                ("to", .string("2026-10-31"))
            ],
            activity: RecordedProgress())
        #expect(!result.isError, "\(result.text)")
        guard case .image(let bytes, let type)? = result.content.first else {
            Issue.record("no image block first")
            return
        }
        #expect(type == "image/png")
        #expect(Array(bytes.prefix(8)) == PNGImage.signature)
        let size = try #require(PNGImage.size(of: Data(bytes)))
        #expect(size.width == 1600 && size.height == 800)
        #expect(result.text.hasPrefix("Line chart 1600×800 PNG of visits by day for 1001 "))
        #expect(result.text.contains("2026-10-01 – 2026-10-31"))
    }

    struct MissingRasterizer: ChartRasterizer {
        func png(fromSVG svg: Data, scale: Double) throws -> Data {
            throw ChartRasterizerError(
                "rsvg-convert is not installed: PNG charts need librsvg (Debian/Ubuntu: apt-get install librsvg2-bin)")
        }
    }

    @Test func drawChartWithoutRsvgConvertIsAnErrorWithTheInstallHint() async throws {
        let folder = try TemporaryFolder()
        var services = TestServices(try Self.reports.get(), database: folder.path + "/h.sqlite", now: Self.monday)
        services.rasterizer = MissingRasterizer()
        let result = try await MetrikaToolCatalogue(services: services).call(
            "draw_chart", arguments: [("counter_ids", ints([1001])), ("period", .string("last7days"))],
            activity: RecordedProgress())
        #expect(result.isError)
        #expect(
            result.text
                == "rsvg-convert is not installed: PNG charts need librsvg (Debian/Ubuntu: apt-get install librsvg2-bin)"
        )
    }

    /// libcurl to a simulator already stopped (its port refuses), counting the requests sent.
    final class CountingTransport: HTTPTransport {
        let curl = CurlTransport()
        let sent = Mutex(0)
        func send(_ request: MetrikaAPI.HTTPRequest) async throws -> MetrikaAPI.HTTPResponse {
            sent.withLock { $0 += 1 }
            return try await curl.send(request)
        }
    }

    @Test func checkAlertsGivesUpOnNamedCountersAsTheAlertRunDoesInItsOwnWords() async throws {
        let folder = try TemporaryFolder()
        let gone = try ToolSimulator(now: Self.monday)
        gone.server.stop()
        var services = TestServices(gone, database: folder.path + "/h.sqlite", now: Self.monday)
        let transport = CountingTransport()
        let waits = Mutex(0.0)
        services.transport = transport
        services.sleep = { seconds in waits.withLock { $0 += seconds } }
        let ids = Array(100_001...100_010)
        let result = try await MetrikaToolCatalogue(services: services).call(
            "check_alerts", arguments: [("counter_ids", ints(ids))], activity: RecordedProgress())
        #expect(result.isError, "\(result.text)")
        #expect(result.text.hasPrefix("127.0.0.1 stopped answering (3 counters in a row: "), "\(result.text)")
        #expect(
            result.text.contains(
                "so check_alerts stopped: 0 of 10 counters checked, 10 not checked (100001, 100002, 100003, 100004, 100005, … and 5 more)"
            ),
            "\(result.text)")
        #expect(result.text.contains("Call check_alerts again later"), "\(result.text)")
        #expect(ToolWordsTests.cliWords(result.text).isEmpty, "\(result.text)")
        // Three counters' reads under the retry policy: the other seven are never asked for.
        let sent = transport.sent.withLock { $0 }
        #expect(sent >= 3 && sent <= 3 * 5, "\(sent) requests: \(result.text)")
    }
}
