import Foundation

// MARK: - Reporting API (metrika-api.md §2)

extension Simulator {
    /// `GET /stat/v1/data`: a paged table.
    func statData(_ request: HTTPRequest) -> HTTPResponse {
        let query: ParsedStatQuery
        switch prepareStatQuery(request, byTime: false) {
        case .failure(let error): return error.response
        case .success(let parsed): query = parsed
        }
        let engine = ReportEngine(query: query, model: model, now: now())
        let result: ReportResult
        switch engine.run(buckets: engine.dateBuckets()) {
        case .failure(let error): return error.response
        case .success(let ran): result = ran
        }
        let writer = ReportWriter(query: query, result: result)
        let metricCount = query.metrics.count
        let values = writer.metricMatrix()
        let order = writer.sortedRowIndexes(values: values)

        var minimum = [Double?](repeating: nil, count: metricCount)
        var maximum = [Double?](repeating: nil, count: metricCount)
        for row in result.rows.indices {
            for m in 0..<metricCount {
                guard let value = values[row * metricCount + m] else { continue }
                minimum[m] = Swift.min(minimum[m] ?? value, value)
                maximum[m] = Swift.max(maximum[m] ?? value, value)
            }
        }

        let start = Swift.min(query.offset - 1, order.count)
        let page = Array(order[start..<Swift.min(order.count, start + query.limit)])
        let totals = query.metrics.map { writer.value($0, result.totals) }
        var document: [(String, JSONValue)] = [
            ("query", writer.queryEcho(byTime: false)),
            ("data", .array([])), // written row by row below
            ("total_rows", .int(result.rows.count)),
            ("total_rows_rounded", .bool(false))
        ]
        document += writer.samplingFields()
        document += [
            ("totals", .array(totals)),
            ("min", .array(minimum.map { $0.map(JSONValue.double) ?? .null })),
            ("max", .array(maximum.map { $0.map(JSONValue.double) ?? .null }))
        ]

        // A 100,000-row page is written straight to bytes; the document tree is only built if a
        // fault needs to distort it.
        var out = JSONWriter(capacity: 256 + page.count * 96)
        out.output.append(UInt8(ascii: "{"))
        for (index, pair) in document.enumerated() {
            if index > 0 { out.output.append(UInt8(ascii: ",")) }
            out.writeString(pair.0)
            out.output.append(UInt8(ascii: ":"))
            if pair.0 == "data" {
                out.output.append(UInt8(ascii: "["))
                for (position, row) in page.enumerated() {
                    if position > 0 { out.output.append(UInt8(ascii: ",")) }
                    writer.writeRow(row, values: values, into: &out)
                }
                out.output.append(UInt8(ascii: "]"))
            } else {
                out.write(pair.1)
            }
        }
        out.output.append(UInt8(ascii: "}"))
        var response = HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: out.output)
        response.documentBuilder = { [writer, document] in
            .object(
                document.map { key, value in
                    key == "data" ? (key, .array(page.map { writer.rowDocument($0, values: values) })) : (key, value)
                })
        }
        return response
    }

    /// `GET /stat/v1/data/bytime`: per row, per metric, one value per period.
    func statByTime(_ request: HTTPRequest) -> HTTPResponse {
        let query: ParsedStatQuery
        switch prepareStatQuery(request, byTime: true) {
        case .failure(let error): return error.response
        case .success(let parsed): query = parsed
        }
        let engine = ReportEngine(query: query, model: model, now: now())
        let intervals = query.group.buckets(from: query.date1, through: query.date2)
        let perInterval: ReportResult
        switch engine.run(buckets: intervals) {
        case .failure(let error): return error.response
        case .success(let ran): perInterval = ran
        }
        let writer = ReportWriter(query: query, result: perInterval)

        var data: [JSONValue] = []
        if engine.valuedDimensionCount == 0 {
            let series = query.metrics.map { metric in
                JSONValue.array(perInterval.bucketTotals.map { writer.value(metric, $0) })
            }
            data.append(.object([("dimensions", .array([])), ("metrics", .array(series))]))
        } else {
            // The top keys over the whole period, then each key's value in every interval.
            let whole: ReportResult
            switch engine.run(buckets: [query.date1...query.date2]) {
            case .failure(let error): return error.response
            case .success(let ran): whole = ran
            }
            let wholeWriter = ReportWriter(query: query, result: whole)
            let top = wholeWriter.sortedRowIndexes(values: wholeWriter.metricMatrix()).prefix(query.topKeys)
            var byKey: [RowKey: Int] = [:]
            for (index, row) in perInterval.rows.enumerated() {
                byKey[RowKey(bucket: row.bucket, values: row.values)] = index
            }
            for rowIndex in top {
                let keyRow = whole.rows[rowIndex]
                let series = query.metrics.map { metric in
                    JSONValue.array(
                        intervals.indices.map { t in
                            let figures = byKey[RowKey(bucket: t, values: keyRow.values)].map {
                                perInterval.rows[$0].figures
                            }
                            return writer.value(metric, figures ?? RowFigures(goalCount: query.goalIDs.count))
                        })
                }
                data.append(
                    .object([("dimensions", .array(wholeWriter.dimensionCells(keyRow))), ("metrics", .array(series))]))
            }
        }
        let totals = query.metrics.map { metric in
            JSONValue.array(perInterval.bucketTotals.map { writer.value(metric, $0) })
        }
        var document: [(String, JSONValue)] = [
            ("query", writer.queryEcho(byTime: true)),
            ("data", .array(data)),
            ("total_rows", .int(data.count)),
            ("total_rows_rounded", .bool(false))
        ]
        document += writer.samplingFields()
        document += [
            ("totals", .array(totals)),
            (
                "time_intervals",
                .array(intervals.map { .array([.string($0.lowerBound.string), .string($0.upperBound.string)]) })
            )
        ]
        return .json(200, .object(document))
    }

    private func prepareStatQuery(_ request: HTTPRequest, byTime: Bool) -> Result<ParsedStatQuery, ResponseError> {
        switch authorize(request) {
        case .rejected(let response): return .failure(ResponseError(response))
        case .authorized(let caller):
            return ParsedStatQuery.parse(
                request.queryItems, caller: caller, fixtures: fixtures, now: now(), byTime: byTime)
        }
    }
}

/// Writes the parts of a report answer.
struct ReportWriter: Sendable {
    let query: ParsedStatQuery
    let result: ReportResult
    let goalSlots: [Int: Int]
    let attributes: AttributeModel
    /// Where each valued dimension's value is in a row's `values` (nil for date dimensions).
    let attributePositions: [Int?]

    init(query: ParsedStatQuery, result: ReportResult) {
        self.query = query
        self.result = result
        var slots: [Int: Int] = [:]
        for (slot, id) in query.goalIDs.enumerated() { slots[id] = slot }
        goalSlots = slots
        attributes = AttributeModel(counter: query.counters[0])
        var position = 0
        attributePositions = query.dimensions.map { dimension in
            guard dimension.isValued else { return nil }
            defer { position += 1 }
            return position
        }
    }

    /// A metric's value as JSON: a double, or null when undefined.
    func value(_ metric: MetricKind, _ figures: RowFigures) -> JSONValue {
        figures.value(of: metric, goalSlots: goalSlots).map(JSONValue.double) ?? .null
    }

    /// Row-major `rows × metrics` values.
    func metricMatrix() -> [Double?] {
        var values: [Double?] = []
        values.reserveCapacity(result.rows.count * query.metrics.count)
        for row in result.rows {
            for metric in query.metrics {
                values.append(row.figures.value(of: metric, goalSlots: goalSlots))
            }
        }
        return values
    }

    /// Row indexes in `sort` order; ties keep a stable, deterministic order. `values` is
    /// `metricMatrix()`.
    func sortedRowIndexes(values: [Double?]) -> [Int] {
        let metricCount = query.metrics.count
        // The common case, one metric key, compares plain doubles.
        if query.sort.count == 1, case .metric(let m) = query.sort[0].column {
            let keys = result.rows.indices.map { values[$0 * metricCount + m] ?? -Double.infinity }
            let descending = query.sort[0].descending
            return Array(result.rows.indices).sorted { a, b in
                keys[a] != keys[b] ? (descending ? keys[a] > keys[b] : keys[a] < keys[b]) : a < b
            }
        }
        // Names are only needed for dimensions the sort mentions.
        var names: [Int: [String?]] = [:]
        for key in query.sort {
            guard case .dimension(let d) = key.column, let position = attributePositions[d], names[d] == nil else {
                continue
            }
            names[d] = result.rows.map { valueName(query.dimensions[d], $0.values[position]).name }
        }
        var order = Array(result.rows.indices)
        order.sort { a, b in
            for key in query.sort {
                let ordering: Int
                switch key.column {
                case .metric(let m):
                    let x = values[a * metricCount + m] ?? -Double.infinity
                    let y = values[b * metricCount + m] ?? -Double.infinity
                    ordering = x < y ? -1 : (x > y ? 1 : 0)
                case .dimension(let d):
                    if let column = names[d] {
                        switch (column[a], column[b]) {
                        case (nil, nil): ordering = 0
                        case (nil, _): ordering = -1
                        case (_, nil): ordering = 1
                        case (let x?, let y?): ordering = x < y ? -1 : (x > y ? 1 : 0)
                        }
                    } else {
                        let x = result.rows[a].bucket * 24 + (result.rows[a].hour ?? 0)
                        let y = result.rows[b].bucket * 24 + (result.rows[b].hour ?? 0)
                        ordering = x < y ? -1 : (x > y ? 1 : 0)
                    }
                }
                if ordering != 0 { return key.descending ? ordering > 0 : ordering < 0 }
            }
            return a < b
        }
        return order
    }

    /// The `id` and `name` of a valued dimension's value (a product has only a name).
    func valueName(_ dimension: DimensionKind, _ value: Int) -> (id: String?, name: String?) {
        switch dimension {
        case .attribute(let attribute): return attributes.describe(attribute, value, language: query.language)
        case .product(let field): return (nil, ProductCatalog.describe(field, value))
        case .date, .period, .hour: return (nil, nil)
        }
    }

    /// The `dimensions` array of a row.
    func dimensionCells(_ row: ReportRow) -> [JSONValue] {
        query.dimensions.indices.map { dimensionCell($0, row) }
    }

    /// One object of a row's `dimensions` array.
    func dimensionCell(_ index: Int, _ row: ReportRow) -> JSONValue {
        switch query.dimensions[index] {
        case .date:
            return .object([("name", .string(result.buckets[row.bucket].lowerBound.string))])
        case .period:
            let bucket = result.buckets[row.bucket]
            return .object([
                ("name", .string(bucket.lowerBound.string)),
                ("from", .string(bucket.lowerBound.string)),
                ("to", .string(bucket.upperBound.string))
            ])
        case .hour:
            let hour = row.hour ?? 0
            return .object([("name", .string(hour < 10 ? "0\(hour):00" : "\(hour):00"))])
        case .attribute, .product:
            let (id, name) = valueName(query.dimensions[index], row.values[attributePositions[index]!])
            var cell: [(String, JSONValue)] = [("name", name.map(JSONValue.string) ?? .null)]
            if let id { cell.append(("id", .string(id))) }
            return .object(cell)
        }
    }

    /// One `data` row as a document (for faults that distort the answer).
    func rowDocument(_ row: Int, values: [Double?]) -> JSONValue {
        let count = query.metrics.count
        let metrics = (0..<count).map { m in values[row * count + m].map(JSONValue.double) ?? .null }
        return .object([("dimensions", .array(dimensionCells(result.rows[row]))), ("metrics", .array(metrics))])
    }

    /// One `data` row written straight to bytes; the same text `rowDocument` serializes to.
    func writeRow(_ row: Int, values: [Double?], into out: inout JSONWriter) {
        out.append("{\"dimensions\":[")
        let reportRow = result.rows[row]
        for (index, dimension) in query.dimensions.enumerated() {
            if index > 0 { out.output.append(UInt8(ascii: ",")) }
            switch dimension {
            case .date, .period, .hour:
                out.write(dimensionCell(index, reportRow))
            case .attribute, .product:
                let (id, name) = valueName(dimension, reportRow.values[attributePositions[index]!])
                out.append("{\"name\":")
                if let name { out.writeString(name) } else { out.append("null") }
                if let id {
                    out.append(",\"id\":")
                    out.writeString(id)
                }
                out.output.append(UInt8(ascii: "}"))
            }
        }
        out.append("],\"metrics\":[")
        let count = query.metrics.count
        for m in 0..<count {
            if m > 0 { out.output.append(UInt8(ascii: ",")) }
            if let value = values[row * count + m] { out.writeDouble(value) } else { out.append("null") }
        }
        out.append("]}")
    }

    /// The `query` echo.
    func queryEcho(byTime: Bool) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("ids", .array(query.counters.map { .int($0.id) })),
            ("dimensions", .array(query.dimensionNames.map(JSONValue.string))),
            ("metrics", .array(query.metricNames.map(JSONValue.string))),
            ("sort", .array(query.sortNames.map(JSONValue.string))),
            ("date1", .string(query.date1.string)),
            ("date2", .string(query.date2.string))
        ]
        if let filters = query.filterText { pairs.append(("filters", .string(filters))) }
        if let preset = query.preset { pairs.append(("preset", .string(preset))) }
        if !byTime {
            pairs.append(("limit", .int(query.limit)))
            pairs.append(("offset", .int(query.offset)))
        }
        pairs.append(("group", .string(query.group.echo)))
        if byTime { pairs.append(("top_keys", .int(query.topKeys))) }
        pairs.append(("attribution", .string(query.attribution)))
        pairs.append(("currency", .string(query.currency)))
        return .object(pairs)
    }

    /// `sampled` ... `data_lag`.
    func samplingFields() -> [(String, JSONValue)] {
        let space = result.populationVisits
        let share = result.sampleShare ?? 1
        let size = result.sampleShare.map { Int((Double(space) * $0).rounded()) } ?? space
        return [
            ("sampled", .bool(result.sampleShare != nil)),
            ("contains_sensitive_data", .bool(false)),
            ("sample_share", .double(share)),
            ("sample_size", .int(size)),
            ("sample_space", .int(space)),
            ("data_lag", .int(60 + (query.counters[0].id % 240)))
        ]
    }
}
