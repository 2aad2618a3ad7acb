import Foundation
import MetrikaTestSupport
import Synchronization

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaUseCases

/// The instant every bot test takes as now: today is 2026-11-29 in UTC.
let testNow = Date(timeIntervalSince1970: 1_795_953_600) // 2026-11-29T12:00:00Z

/// A Metrika API that answers from rules: counter 1001 (UTC), daily rows for any span (a value per
/// day and metric, a percentage within 0–100) and `/stat/v1/data/bytime` totals per period.
final class RuleAPI: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let path = components.path
        if path.hasPrefix("/management/v1/counter/") {
            guard path.hasSuffix("/1001") else {
                let body =
                    #"{"errors":[{"error_type":"not_found","message":"no counter"}],"code":404,"message":"no counter"}"#
                return HTTPResponse(status: 404, body: Data(body.utf8))
            }
            let body = #"{"counter":{"id":1001,"name":"Shop","site":"shop.example","time_zone_name":"UTC"}}"#
            return HTTPResponse(status: 200, body: Data(body.utf8))
        }
        let span = DateRange(from: Day(iso: query["date1"] ?? "")!, to: Day(iso: query["date2"] ?? "")!)!
        let names = (query["metrics"] ?? "").split(separator: ",").map(String.init)
        func value(_ index: Int, _ day: Day) -> Int {
            names[index].hasSuffix("bounceRate") ? day.components.day + index : day.components.day * 10 + index + 1
        }
        if path == "/stat/v1/data/bytime" {
            let periods = span.periods(Grouping(rawValue: query["group"] ?? "day") ?? .day)
            let totals = names.indices.map { index in
                "[" + periods.map { String(value(index, $0.from)) }.joined(separator: ",") + "]"
            }.joined(separator: ",")
            let intervals = periods.map { #"["\#($0.from.iso)","\#($0.to.iso)"]"# }.joined(separator: ",")
            let body = #"{"totals":[\#(totals)],"time_intervals":[\#(intervals)],"sampled":false}"#
            return HTTPResponse(status: 200, body: Data(body.utf8))
        }
        guard path == "/stat/v1/data", query["dimensions"] == "ym:s:date" else {
            return HTTPResponse(status: 404, body: Data("{}".utf8))
        }
        let offset = Int(query["offset"] ?? "1") ?? 1
        let limit = Int(query["limit"] ?? "100") ?? 100
        let rows = span.days.dropFirst(offset - 1).prefix(limit).map { day in
            let values = names.indices.map { String(value($0, day)) }.joined(separator: ",")
            return #"{"dimensions":[{"name":"\#(day.iso)"}],"metrics":[\#(values)]}"#
        }.joined(separator: ",")
        let totals = names.map { _ in "1" }.joined(separator: ",")
        let body = #"{"data":[\#(rows)],"total_rows":\#(span.dayCount),"totals":[\#(totals)],"sampled":false}"#
        return HTTPResponse(status: 200, body: Data(body.utf8))
    }
}

/// An `Activity` that keeps the notes a bot's run said.
final class RecordedActivity: Activity {
    private let lines = Mutex<[String]>([])
    let now: @Sendable () -> Date = { testNow }

    func note(_ line: String) { lines.withLock { $0.append(line) } }
    func progress(_ text: String, force: Bool) {}
    func endProgress() {}

    var notes: [String] { lines.withLock { $0 } }
}

/// A fresh database file per test, removed afterwards.
final class TemporaryDatabase {
    let directory: String
    var path: String { directory + "/history.sqlite" }

    init() throws {
        directory =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("metrika-bot-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
