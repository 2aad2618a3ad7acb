import Foundation
import MetrikaAPI
import Synchronization
import Testing

@testable import MetrikaModel
@testable import MetrikaStore
@testable import MetrikaUseCases

/// Issue 48 target 6, "kept in history": a counter's chart annotations are read at most once an hour
/// (`HistoryLoader.annotationsMemory`) and kept; offline, or when the read fails, the kept ones show.
@Suite struct AnnotationHistoryTests {
    /// `GET …/chart_annotations`: the current body (or a 403 when `refusing`), counted.
    final class AnnotationsAPI: HTTPTransport {
        struct State {
            var body = #"{"chart_annotations": []}"#
            var refusing = false
            var reads = 0
        }
        let state = Mutex(State())

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let (body, refusing) = state.withLock { state in
                state.reads += 1
                return (state.body, state.refusing)
            }
            #expect(request.url.path == "/management/v1/counter/1005/chart_annotations")
            if refusing {
                return HTTPResponse(
                    status: 403,
                    body: Data(#"{"errors":[{"error_type":"access_denied","message":"no"}],"code":403}"#.utf8))
            }
            return HTTPResponse(status: 200, body: Data(body.utf8))
        }
    }

    static func body(_ titles: [(Int, String, String)]) -> String {
        let items = titles.map {
            #"{"id": \#($0.0), "date": "\#($0.1)", "time": "10:00:00", "title": "\#($0.2)", "message": "", "group": "A"}"#
        }
        return #"{"chart_annotations": [\#(items.joined(separator: ","))]}"#
    }

    @Test func aReadIsKeptAnHourAndShownOfflineOrWhenTheAPIFails() async throws {
        let api = AnnotationsAPI()
        let store = try await HistoryStore.open(path: ":memory:")
        let clock = Mutex(testNow)
        let now: @Sendable () -> Date = { clock.withLock { $0 } }
        let client = MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: api,
            requestTimeout: 5, sleep: { _ in }, now: now)
        let online = HistoryLoader(store: store, client: client, now: now, unsettledDays: 2)
        let offline = HistoryLoader(store: store, client: nil, now: now, unsettledDays: 2)
        // Offline with nothing kept: none, and no failure.
        #expect(try await offline.annotations(counterID: 1005).get().isEmpty)
        api.state.withLock {
            $0.body = Self.body([(7, "2026-11-29", "Новый шаблон сайта"), (8, "2026-11-20", "Старт")])
        }
        let first = try await online.annotations(counterID: 1005).get()
        #expect(first.map(\.title) == ["Новый шаблон сайта", "Старт"] && api.state.withLock(\.reads) == 1)
        // Within the hour: the kept set, no request (one deleted in Metrika meanwhile still shows).
        api.state.withLock { $0.body = Self.body([(8, "2026-11-20", "Старт")]) }
        clock.withLock { $0 += HistoryLoader.annotationsMemory - 60 }
        #expect(try await online.annotations(counterID: 1005).get() == first)
        #expect(api.state.withLock(\.reads) == 1)
        #expect(try await offline.annotations(counterID: 1005).get() == first, "offline: the kept ones")
        // After the hour: read again, and the deleted one is gone from the history too.
        clock.withLock { $0 += 120 }
        #expect(try await online.annotations(counterID: 1005).get().map(\.id) == [8])
        #expect(api.state.withLock(\.reads) == 2)
        #expect(try await offline.annotations(counterID: 1005).get().map(\.id) == [8])
        // Unreadable after the next hour: the kept ones; with nothing kept, the failure.
        api.state.withLock { $0.refusing = true }
        clock.withLock { $0 += HistoryLoader.annotationsMemory }
        #expect(try await online.annotations(counterID: 1005).get().map(\.id) == [8])
        #expect(api.state.withLock(\.reads) == 3)
        let empty = HistoryLoader(
            store: try await HistoryStore.open(path: ":memory:"), client: client, now: now, unsettledDays: 2)
        guard case .failure = await empty.annotations(counterID: 1005) else {
            Issue.record("nothing kept and unreadable: a failure")
            return
        }
    }
}
