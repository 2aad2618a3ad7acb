import Foundation

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaUseCases

/// The instant every use-case test takes as now: today is 2026-11-29 in UTC.
let testNow = Date(timeIntervalSince1970: 1_795_953_600) // 2026-11-29T12:00:00Z

func day(_ iso: String) -> Day { Day(iso: iso)! }

func days(_ from: String, _ to: String) -> DateRange { DateRange(from: day(from), to: day(to))! }

/// A Metrika API that answers from rules, not a script: counters by id, daily rows for any span
/// (`value(metric, day)`), dimension reports of `dimensionRows` rows; it records every request so a
/// test can say exactly what was asked.
final class RuleAPI: HTTPTransport, @unchecked Sendable {
    struct Sent: Equatable {
        var path: String
        var query: [String: String]
    }

    private let lock = NSLock()
    private var sent: [Sent] = []
    var counters: [Int: String] = [:]
    /// Counters whose statistics the API refuses (403 access_denied), as Metrika does for some.
    var refusedData: Set<Int> = []
    /// Rows of a report by any other dimension than the date.
    var dimensionRows = 0
    /// Metric values per row; a wrong number makes a malformed answer.
    var valuesPerRowOverride: Int?
    /// The currency each counter's answers name in `query.currency` (none: no query echo at all).
    var currencies: [Int: String] = [:]

    init(counters: [Int: String] = [1001: #"{"id":1001,"name":"Shop","site":"shop.example","time_zone_name":"UTC"}"#]) {
        self.counters = counters
    }

    var requests: [Sent] {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }

    private func record(_ request: Sent) {
        lock.lock()
        sent.append(request)
        lock.unlock()
    }

    var dataRequests: [Sent] { requests.filter { $0.path == "/stat/v1/data" } }

    /// The value a day has for the metric at `index`: different per day and metric, never zero.
    static func value(_ index: Int, _ day: Day) -> Double { Double(day.components.day * 10 + index + 1) }

    /// A percentage's value (bounce rate): within 0–100, as the client's plausibility check wants.
    static func value(_ index: Int, _ day: Day, percent: Bool) -> Double {
        percent ? Double(day.components.day + index) : value(index, day)
    }

    static func isPercent(_ apiName: String) -> Bool {
        apiName.hasSuffix("bounceRate") || apiName.lowercased().contains("percent")
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let path = components.path
        record(Sent(path: path, query: query))
        if path.hasPrefix("/management/v1/counter/") {
            let id = Int(path.split(separator: "/").last!) ?? 0
            guard let body = counters[id] else {
                return HTTPResponse(
                    status: 404,
                    body: Data(
                        #"{"errors":[{"error_type":"not_found","message":"no counter"}],"code":404,"message":"no counter"}"#
                            .utf8))
            }
            return HTTPResponse(status: 200, body: Data(#"{"counter":\#(body)}"#.utf8))
        }
        if path == "/stat/v1/data/bytime" { return Self.byTime(query) }
        guard path == "/stat/v1/data" else { return HTTPResponse(status: 404, body: Data("{}".utf8)) }
        let id = Int(query["ids"] ?? "") ?? 0
        if refusedData.contains(id) {
            return HTTPResponse(
                status: 403,
                body: Data(
                    #"{"errors":[{"error_type":"access_denied","message":"Access denied"}],"code":403,"message":"Access denied"}"#
                        .utf8))
        }
        let names = (query["metrics"] ?? "").split(separator: ",").map(String.init)
        let metrics = names.count
        let width = valuesPerRowOverride ?? metrics
        let offset = Int(query["offset"] ?? "1") ?? 1
        let limit = Int(query["limit"] ?? "100") ?? 100
        var rows: [String] = []
        let total: Int
        if query["dimensions"] == "ym:s:date" {
            let span = DateRange(from: Day(iso: query["date1"]!)!, to: Day(iso: query["date2"]!)!)!
            total = span.dayCount
            for day in span.days.dropFirst(offset - 1).prefix(limit) {
                let values = (0..<width).map {
                    String(Int(Self.value($0, day, percent: $0 < names.count && Self.isPercent(names[$0]))))
                }.joined(separator: ",")
                rows.append(#"{"dimensions":[{"name":"\#(day.iso)"}],"metrics":[\#(values)]}"#)
            }
        } else {
            total = dimensionRows
            for index in (offset - 1)..<min(total, offset - 1 + limit) {
                let values = (0..<width).map { String($0 + index + 1) }.joined(separator: ",")
                rows.append(
                    #"{"dimensions":[{"name":"source-\#(index + 1)","id":"\#(index + 1)"}],"metrics":[\#(values)]}"#)
            }
        }
        let totals = (0..<metrics).map { _ in "1" }.joined(separator: ",")
        let echo = currencies[id].map { #","query":{"currency":"\#($0)"}"# } ?? ""
        let body =
            #"{"data":[\#(rows.joined(separator: ","))],"total_rows":\#(total),"totals":[\#(totals)],"sampled":false\#(echo)}"#
        return HTTPResponse(status: 200, body: Data(body.utf8))
    }

    /// The API's total of the metric at `index` over a whole week or month: a value of its own, never
    /// a sum of days (as users are not), so a test can tell where a period's value came from.
    static func periodTotal(_ index: Int, _ period: DateRange) -> Double {
        Double(100_000 * (index + 1) + period.from.components.month * 100 + period.from.components.day)
    }

    /// `/stat/v1/data/bytime`: one total per metric and period of `group`, the first and last period
    /// clipped to the dates, as Metrika answers.
    static func byTime(_ query: [String: String]) -> HTTPResponse {
        let range = DateRange(from: Day(iso: query["date1"]!)!, to: Day(iso: query["date2"]!)!)!
        let grouping = Grouping(rawValue: query["group"] ?? "day") ?? .day
        let periods = range.periods(grouping)
        let metrics = (query["metrics"] ?? "").split(separator: ",").count
        let totals = (0..<metrics).map { index in
            "[" + periods.map { String(Int(periodTotal(index, $0))) }.joined(separator: ",") + "]"
        }
        let intervals = periods.map { #"["\#($0.from.iso)","\#($0.to.iso)"]"# }
        let body =
            #"{"totals":[\#(totals.joined(separator: ","))],"time_intervals":[\#(intervals.joined(separator: ","))],"sampled":false}"#
        return HTTPResponse(status: 200, body: Data(body.utf8))
    }

    func client() -> MetrikaClient {
        MetrikaClient(
            baseURL: URL(string: "https://api.example.test")!, token: "test-token-0123456789", transport: self,
            requestTimeout: 5, sleep: { _ in }, now: { testNow })
    }
}

/// An `Activity` that keeps what a use case said.
/// The CLI's words for parameters (`--offline`, as MetrikaCLI's `ParameterNaming.cli`): what these
/// tests compare sentences with.
let cliNaming = ParameterNaming(
    name: { "--" + $0.words.joined(separator: "-") },
    action: { action in
        switch action {
        case .sync(let id): return "run metrika sync --counter \(id) (or the report without --offline)"
        case .cleanLogs(let id): return "metrika logs --counter \(id) --clean-all"
        case .watchToday(let id):
            return "see today against the same hours of earlier weeks with `metrika live --counter \(id)`"
        case .fetchOnline: return "run without --offline to fetch it"
        case .compareOtherDays(let id):
            return "compare with other days: metrika explain --counter \(id) --against previous (or DATE..DATE)"
        // The fixes of failures below the use cases: their CLI words are MetrikaCLITests' (CLIWordsTests).
        default: return ParameterNaming.neutral.action(action)
        }
    })

final class RecordedActivity: Activity, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var statuses: [String] = []
    let now: @Sendable () -> Date = { testNow }
    /// The CLI's naming (`--offline`): the notes these tests read are the ones a person sees.
    let naming = cliNaming

    func note(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    func progress(_ text: String, force: Bool) {
        lock.lock()
        statuses.append(text)
        lock.unlock()
    }

    func endProgress() {}

    var notes: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    var progressLines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return statuses
    }
}

/// A sink that keeps every call.
final class CollectingSink: ReportSink, @unchecked Sendable {
    var layouts: [ReportLayout] = []
    var sections: [Counter] = []
    var rows: [Report.Row] = []
    var totals: [[Quantity]] = []
    var ended = 0

    func begin(_ layout: ReportLayout) { layouts.append(layout) }
    func beginSection(counter: Counter, sampling: Sampling?) { sections.append(counter) }
    func append(_ rows: [Report.Row]) { self.rows += rows }
    func endSection(totals: [Quantity], missingDays: [Day]) { self.totals.append(totals) }
    func end() { ended += 1 }
}

/// A fresh database file per test, removed afterwards.
final class TemporaryDatabase {
    let directory: String
    var path: String { directory + "/history.sqlite" }

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("metrika-usecases-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
