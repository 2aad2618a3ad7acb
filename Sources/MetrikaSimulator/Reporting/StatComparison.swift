import Foundation

// MARK: - GET /stat/v1/data/comparison (metrika-api.md §2)

extension Simulator {
    /// `GET /stat/v1/data/comparison`: one breakdown for two periods (or two filters), each row's
    /// metrics `{"a": [...], "b": [...]}`. Parameters as `/stat/v1/data`, with `date1_a`, `date2_a`,
    /// `date1_b`, `date2_b`, `filters_a`, `filters_b` in place of `date1`, `date2`, `filters` (a
    /// missing `_a` falls back to the plain parameter, a missing `_b` to the `_a` one). Rows are
    /// the union of both sides' values (a value only one side has is 0 — a ratio null — on the other),
    /// sorted by the first metric of a, then of b, descending; paged with `limit`/`offset`. Date and
    /// hour dimensions are not simulated (400).
    func statComparison(_ request: HTTPRequest) -> HTTPResponse {
        let caller: TokenFixture
        switch authorize(request) {
        case .rejected(let response): return response
        case .authorized(let authorized): caller = authorized
        }
        let items = request.queryItems
        func first(_ name: String) -> String? { items.first { $0.0 == name }?.1 }
        let replaced: Set<String> = [
            "date1", "date2", "filters", "date1_a", "date2_a", "date1_b", "date2_b", "filters_a", "filters_b"
        ]
        let base = items.filter { !replaced.contains($0.0) }
        let sideA: [(String, String?)] = [
            ("date1", first("date1_a") ?? first("date1")), ("date2", first("date2_a") ?? first("date2")),
            ("filters", first("filters_a") ?? first("filters"))
        ]
        let sideB: [(String, String?)] = [
            ("date1", first("date1_b") ?? sideA[0].1), ("date2", first("date2_b") ?? sideA[1].1),
            ("filters", first("filters_b") ?? sideA[2].1)
        ]
        var sides: [(query: ParsedStatQuery, result: ReportResult)] = []
        for side in [sideA, sideB] {
            let sideItems = base + side.compactMap { name, value in value.map { (name, $0) } }
            let query: ParsedStatQuery
            switch ParsedStatQuery.parse(sideItems, caller: caller, fixtures: fixtures, now: now(), byTime: false) {
            case .failure(let error): return error.response
            case .success(let parsed): query = parsed
            }
            if query.dimensions.contains(where: { !$0.isValued }) {
                return APIError.response(
                    400, "invalid_parameter",
                    "Date and hour dimensions are not supported by /stat/v1/data/comparison in the simulator")
            }
            let engine = ReportEngine(query: query, model: model, now: now())
            switch engine.run(buckets: [query.date1...query.date2]) {
            case .failure(let error): return error.response
            case .success(let result): sides.append((query, result))
            }
        }
        let writerA = ReportWriter(query: sides[0].query, result: sides[0].result)
        let writerB = ReportWriter(query: sides[1].query, result: sides[1].result)
        let metrics = sides[0].query.metrics
        let empty = RowFigures(goalCount: sides[0].query.goalIDs.count)

        // The union of both sides' rows, by value.
        var keys: [[Int]] = []
        var rowsA: [[Int]: ReportRow] = [:]
        var rowsB: [[Int]: ReportRow] = [:]
        for row in sides[0].result.rows where rowsA[row.values] == nil {
            rowsA[row.values] = row
            keys.append(row.values)
        }
        for row in sides[1].result.rows where rowsB[row.values] == nil {
            rowsB[row.values] = row
            if rowsA[row.values] == nil { keys.append(row.values) }
        }
        func firstValue(_ writer: ReportWriter, _ row: ReportRow?) -> Double {
            guard let metric = metrics.first else { return 0 }
            return (row?.figures).flatMap { $0.value(of: metric, goalSlots: writer.goalSlots) } ?? -.infinity
        }
        let order = keys.indices.sorted { x, y in
            let a = (firstValue(writerA, rowsA[keys[x]]), firstValue(writerB, rowsB[keys[x]]))
            let b = (firstValue(writerA, rowsA[keys[y]]), firstValue(writerB, rowsB[keys[y]]))
            return a.0 != b.0 ? a.0 > b.0 : a.1 != b.1 ? a.1 > b.1 : x < y
        }
        let query = sides[0].query
        let start = Swift.min(query.offset - 1, order.count)
        let page = order[start..<Swift.min(order.count, start + query.limit)]
        let data: [JSONValue] = page.map { index in
            let key = keys[index]
            let row = rowsA[key] ?? rowsB[key]!
            return .object([
                ("dimensions", .array(writerA.dimensionCells(row))),
                (
                    "metrics",
                    .object([
                        ("a", .array(metrics.map { writerA.value($0, rowsA[key]?.figures ?? empty) })),
                        ("b", .array(metrics.map { writerB.value($0, rowsB[key]?.figures ?? empty) }))
                    ])
                )
            ])
        }
        var echo: [(String, JSONValue)] = []
        if case .object(let pairs) = writerA.queryEcho(byTime: false) {
            echo = pairs.filter { !["date1", "date2", "filters"].contains($0.0) }
        }
        echo += [
            ("date1_a", .string(sides[0].query.date1.string)), ("date2_a", .string(sides[0].query.date2.string)),
            ("date1_b", .string(sides[1].query.date1.string)), ("date2_b", .string(sides[1].query.date2.string))
        ]
        if let filters = sides[0].query.filterText { echo.append(("filters_a", .string(filters))) }
        if let filters = sides[1].query.filterText { echo.append(("filters_b", .string(filters))) }
        var document: [(String, JSONValue)] = [
            ("query", .object(echo)),
            ("data", .array(data)),
            ("total_rows", .int(keys.count)),
            ("total_rows_rounded", .bool(false))
        ]
        // Sampling as the a side's (both sides sample alike over periods of a size).
        document += writerA.samplingFields()
        document.append(
            (
                "totals",
                .object([
                    ("a", .array(metrics.map { writerA.value($0, sides[0].result.totals) })),
                    ("b", .array(metrics.map { writerB.value($0, sides[1].result.totals) }))
                ])
            ))
        return .json(200, .object(document))
    }
}
