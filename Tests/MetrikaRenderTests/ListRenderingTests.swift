import Foundation
import MetrikaModel
import Testing

@testable import MetrikaRender

/// The list outputs, rendered once for the CLI and MCP (issue 36 item 6): counters, goals, the logs
/// list and cache info.
@Suite("List rendering")
struct ListRenderingTests {
    static let counter = Counter(
        id: 1001, name: "Shop", site: "shop.example", ownerLogin: "demo-user", timeZoneName: "Europe/Moscow")

    @Test("A counter's JSON: the union of the CLI's and MCP's members, in one order")
    func counterJSON() {
        let json = CounterListing.json(.init(counter: Self.counter, currency: "RUB")).serialized()
        #expect(
            json
                == #"{"id":1001,"name":"Shop","site":"shop.example","status":"Active","permission":"own","owner_login":"demo-user","time_zone":"Europe/Moscow","currency":"RUB"}"#
        )
        #expect(
            CounterListing.document([.init(counter: Self.counter)]).serialized().hasPrefix(
                #"{"version":1,"counters":[{"id":1001,"#))
        #expect(CounterListing.json(.init(counter: Self.counter)).serialized().hasSuffix(#""currency":null}"#))
    }

    @Test("The counters table: the command's columns, or the time zone and currency for an assistant")
    func counterTables() {
        let standard = CounterListing.table([.init(counter: Self.counter, currency: "RUB")]).render(maxWidth: nil)
        #expect(standard.hasPrefix("  ID  Name  Site          Status  Permission\n"))
        let assistant = CounterListing.table(
            [.init(counter: Self.counter, currency: "RUB")], columns: .withZoneAndCurrency
        ).render(maxWidth: nil)
        #expect(assistant.contains("Europe/Moscow") && assistant.contains("RUB") && !assistant.contains("Active"))
    }

    @Test("Goals: the command's document is versioned, MCP's is not; the members are the same")
    func goals() {
        let goals = [Goal(id: 4001, name: "Order", type: "action")]
        #expect(
            GoalListing.document(counterID: 1001, goals: goals, versioned: true).serialized()
                == #"{"version":1,"counter_id":1001,"goals":[{"id":4001,"name":"Order","type":"action"}]}"#)
        #expect(
            GoalListing.document(counterID: 1001, goals: goals, versioned: false).serialized()
                == #"{"counter_id":1001,"goals":[{"id":4001,"name":"Order","type":"action"}]}"#)
        #expect(GoalListing.emptyText(counterID: 7) == "Counter 7 has no goals.")
    }

    @Test("The logs list: sizes in MB on a terminal and in bytes in TSV, the days loaded as ranges and the gaps named")
    func logsList() throws {
        let loaded = [
            DateRange(from: Day(iso: "2026-11-01")!, to: Day(iso: "2026-11-03")!)!,
            DateRange(from: Day(iso: "2026-11-06")!, to: Day(iso: "2026-11-06")!)!
        ]
        let missing = [DateRange(from: Day(iso: "2026-11-04")!, to: Day(iso: "2026-11-05")!)!]
        let listing = LogsListing(
            counterID: 1001,
            requests: [
                .init(
                    requestID: 7, status: "processed", source: "visits", date1: "2026-11-01", date2: "2026-11-06",
                    size: 12_399_999)
            ],
            loads: [
                .init(
                    source: .visits, loadedInto: "127.0.0.1:8123/metrika.visits", firstDay: loaded[0].from,
                    lastDay: loaded[1].to,
                    loadedAt: Date(timeIntervalSince1970: 1_764_000_000), rows: 12_345, loaded: loaded, missing: missing
                )
            ])
        let requests = try #require(listing.requestsTable()).render(maxWidth: nil)
        #expect(requests.contains("12.3 MB"))
        let loads = try #require(listing.loadsTable()).render(maxWidth: nil)
        #expect(loads.contains("2026-11-01…2026-11-03, 2026-11-06; missing 2026-11-04…2026-11-05"))
        #expect(loads.contains("12 345"))
        let tsv = listing.tsv()
        #expect(
            tsv.hasPrefix(
                "request_id\tstatus\tsource\tdate1\tdate2\tsize\n7\tprocessed\tvisits\t2026-11-01\t2026-11-06\t12399999\n\nsource\t"
            ))
        #expect(tsv.contains("\t2026-11-01/2026-11-03,2026-11-06/2026-11-06\t2026-11-04/2026-11-05\n"))
        #expect(listing.json().serialized().contains(#""missing":[{"from":"2026-11-04","to":"2026-11-05"}]"#))
        #expect(LogsListing(counterID: 5, requests: [], loads: []).requestsTable() == nil)
    }

    @Test("Cache info: sizes in B, KiB, MiB; times in UTC to the second")
    func cacheInfo() {
        #expect(CacheInfoListing.humanSize(512) == "512 B")
        #expect(CacheInfoListing.humanSize(1536) == "1.5 KiB")
        #expect(CacheInfoListing.humanSize(12 * 1024 * 1024) == "12.0 MiB")
        let fetched = Date(timeIntervalSince1970: 1_764_000_000.9)
        let info = CacheInfo(
            path: "/tmp/h.sqlite", sizeBytes: 2048, schemaVersion: 9,
            counters: [
                .init(
                    id: 1001, name: "Shop", firstDay: Day(iso: "2026-11-01"), lastDay: Day(iso: "2026-11-10"),
                    dayCount: 10, lastFetchedAt: fetched)
            ], lastSync: fetched)
        let text = CacheInfoListing.text(info, maxWidth: nil)
        #expect(
            text.hasPrefix(
                "Database:     /tmp/h.sqlite\nSize:         2.0 KiB\nSchema:       version 9\nLast sync:    \(RFC3339.format(fetched))\nCounters:     1\n\n"
            ))
        #expect(
            CacheInfoListing.csvRows(info) == [
                ["1001", "Shop", "2026-11-01", "2026-11-10", "10", RFC3339.format(fetched)]
            ])
        #expect(CacheInfoListing.json(info).serialized().contains(#""size_bytes":2048,"schema_version":9"#))
        #expect(
            CacheInfoListing.missingJSON(path: "/x").serialized()
                == #"{"version":1,"path":"/x","exists":false,"counters":[]}"#)
    }
}
