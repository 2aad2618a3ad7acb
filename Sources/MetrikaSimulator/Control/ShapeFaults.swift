import Foundation

// MARK: - Answer shapes of the real API, and servers that lie about paging

/// Shapes real `/stat/v1/data` answers take that the simulator's own answers do not (see
/// Fixtures/real-api/README.md), applied by the `shape` fault.
enum AnswerShape: String, CaseIterable, Sendable {
    /// The report asked for without dimensions: one row with `"dimensions": []`.
    case noDimensions = "no_dimensions"
    /// No `query` echo.
    case noQuery = "no_query"
    /// No `totals`, `min` or `max`.
    case noTotals = "no_totals"
    /// Only `data`: no query echo, no totals, no `total_rows`, no sampling fields.
    case minimal
    /// Every metric value `null` (rows and totals).
    case nullMetrics = "null_metrics"
    /// Every dimension object gains `"favicon"` and `"url": null`.
    case urlNull = "url_null"
    /// Dimension ids in Cyrillic, as the Direct source engine's `ad.Яндекс: Директ`.
    case cyrillicIDs = "cyrillic_ids"
    /// The query echo names dimensions and metrics with acronyms and an all-caps attribution prefix
    /// (`ym:s:CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICKTrafficSource`, `ym:s:UTMSource`).
    case acronymNames = "acronym_names"
}

extension Simulator {
    /// The answer to `request` in `shape`.
    func respond(to request: HTTPRequest, shape: AnswerShape) -> HTTPResponse {
        if shape == .noDimensions {
            var plain = request
            plain.query = Simulator.replacingQueryItem("dimensions", with: "", in: request.query)
            return route(plain)
        }
        let response = route(request)
        guard response.status == 200, let document = response.sourceDocument, document["data"] != nil else {
            return response
        }
        var result = HTTPResponse.json(200, Simulator.reshaped(document, shape))
        result.headers = response.headers
        return result
    }

    /// A server that ignores `offset` and claims a huge total: every `/stat/v1/data` page is the
    /// first one with `total_rows` 10^12, and every counters page is `per_page` counters never seen
    /// before with `rows` 10^12. `fullPages`: report pages are `limit` made-up rows, the same ones on
    /// every page (cheap, whatever the limit), instead of the counter's real first page.
    func respondLyingAboutPaging(to request: HTTPRequest, fullPages: Bool) -> HTTPResponse {
        let claimed = 1_000_000_000_000
        if request.path.hasPrefix("/management/v1/counters") {
            let items = request.queryItems
            let offset = items.first { $0.0 == "offset" }.flatMap { Int($0.1) } ?? 1
            let perPage = min(1000, max(1, items.first { $0.0 == "per_page" }.flatMap { Int($0.1) } ?? 1000))
            let counters: [JSONValue] = (0..<perPage).map { index in
                let id = 50_000_000 + (offset &+ index) % 1_000_000_000
                return .object([
                    ("id", .int(id)), ("name", .string("Counter \(id)")), ("site", .string("site\(id).example"))
                ])
            }
            return .json(200, .object([("rows", .int(claimed)), ("counters", .array(counters))]))
        }
        if fullPages, request.path.hasPrefix("/stat/v1/data") {
            let items = request.queryItems
            func names(_ key: String) -> [String] {
                (items.first { $0.0 == key }?.1 ?? "").split(separator: ",").map(String.init)
            }
            let limit = min(100_000, max(1, items.first { $0.0 == "limit" }.flatMap { Int($0.1) } ?? 100))
            let dimensions = names("dimensions")
            let metrics = names("metrics")
            let rows: [JSONValue] = (0..<limit).map { index in
                .object([
                    (
                        "dimensions",
                        .array(
                            dimensions.map { _ in
                                .object([("name", .string("row \(index + 1)")), ("id", .string(String(index + 1)))])
                            })
                    ),
                    ("metrics", .array(metrics.map { _ in .double(Double(index + 1)) }))
                ])
            }
            return .json(
                200,
                .object([
                    (
                        "query",
                        .object([
                            ("dimensions", .array(dimensions.map(JSONValue.string))),
                            ("metrics", .array(metrics.map(JSONValue.string)))
                        ])
                    ),
                    ("data", .array(rows)), ("total_rows", .int(claimed)), ("sampled", .bool(false)),
                    ("totals", .array(metrics.map { _ in .double(0) }))
                ]))
        }
        var first = request
        first.query = Simulator.replacingQueryItem("offset", with: "1", in: request.query)
        let response = route(first)
        guard response.status == 200, let document = response.sourceDocument, document["data"] != nil else {
            return response
        }
        return .json(200, document.setting("total_rows", to: .int(claimed)))
    }

    /// `query` with every `name=` item replaced by one `name=value` (value already encoded).
    static func replacingQueryItem(_ name: String, with value: String, in query: String) -> String {
        var parts = query.split(separator: "&").map(String.init).filter { !$0.hasPrefix(name + "=") && $0 != name }
        parts.append("\(name)=\(value)")
        return parts.joined(separator: "&")
    }

    static func reshaped(_ document: JSONValue, _ shape: AnswerShape) -> JSONValue {
        guard case .object(let pairs) = document else { return document }
        switch shape {
        case .noDimensions:
            return document
        case .noQuery:
            return .object(pairs.filter { $0.0 != "query" })
        case .noTotals:
            return .object(pairs.filter { !["totals", "min", "max"].contains($0.0) })
        case .minimal:
            return .object(pairs.filter { $0.0 == "data" })
        case .nullMetrics:
            return .object(
                pairs.map { key, value in
                    switch key {
                    case "totals", "min", "max": return (key, nulled(value))
                    case "data":
                        return (key, mapRows(value) { $0.setting("metrics", to: nulled($0["metrics"] ?? .array([]))) })
                    default: return (key, value)
                    }
                })
        case .urlNull, .cyrillicIDs:
            return .object(
                pairs.map { key, value in
                    guard key == "data" else { return (key, value) }
                    return (
                        key,
                        mapRows(value) { row in
                            let cells = (row["dimensions"]?.arrayValue ?? []).map { cell -> JSONValue in
                                if shape == .urlNull {
                                    return cell.setting("favicon", to: .string("example.ru")).setting("url", to: .null)
                                }
                                let id = cell["id"]?.stringValue ?? cell["name"]?.stringValue ?? "нет"
                                return cell.setting("id", to: .string("ad.Яндекс: Директ / " + id))
                            }
                            return row.setting("dimensions", to: .array(cells))
                        }
                    )
                })
        case .acronymNames:
            return .object(
                pairs.map { key, value in
                    guard key == "query", case .object(let echo) = value else { return (key, value) }
                    return (
                        key,
                        .object(
                            echo.map { name, list in
                                guard name == "dimensions" || name == "metrics", let items = list.arrayValue else {
                                    return (name, list)
                                }
                                return (
                                    name,
                                    .array(
                                        items.enumerated().map { index, item in
                                            .string(
                                                acronymName(
                                                    item.stringValue ?? "", position: index,
                                                    isDimension: name == "dimensions"))
                                        })
                                )
                            })
                    )
                })
        }
    }

    /// A real name with acronyms standing in for a simulator name: the first dimension carries the
    /// all-caps attribution prefix, the next ones are UTM and URL names; metrics keep their names
    /// but get a raw `ym:pv:` spelling for page views.
    private static func acronymName(_ name: String, position: Int, isDimension: Bool) -> String {
        guard isDimension else { return name == "ym:s:pageviews" ? "ym:pv:pageviews" : name }
        let tail = name.split(separator: ":").last.map(String.init) ?? name
        let capitalized = tail.prefix(1).uppercased() + tail.dropFirst()
        switch position {
        case 0: return "ym:s:CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICK" + capitalized
        case 1: return "ym:s:UTMSource"
        case 2: return "ym:s:startURLPath"
        default: return "ym:pv:URLHash"
        }
    }

    private static func nulled(_ value: JSONValue) -> JSONValue {
        guard let items = value.arrayValue else { return .null }
        return .array(items.map { $0.arrayValue != nil ? nulled($0) : .null })
    }

    private static func mapRows(_ value: JSONValue, _ transform: (JSONValue) -> JSONValue) -> JSONValue {
        .array((value.arrayValue ?? []).map(transform))
    }
}
