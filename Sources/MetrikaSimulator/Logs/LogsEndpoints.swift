import Foundation

// MARK: - Logs API (metrika-api.md §5)

/// One log request the simulator holds.
struct LogRequestRecord: Sendable {
    let id: Int
    let counterID: Int
    let source: LogRowWriter.LogSource
    let date1: Day
    let date2: Day
    let fields: [String]
    var status: String
    /// Info polls seen so far; the request turns `processed` after `SimulatorOptions.logsReadyPolls`.
    var polls = 0
    /// Rows of each day from `date1`, fixed at creation.
    let rowsPerDay: [Int]

    var totalRows: Int { rowsPerDay.reduce(0, +) }
}

/// The Logs API's share of the simulator state.
struct LogsState: Sendable {
    var requests: [Int: LogRequestRecord] = [:]
    var nextID = 7_000_001
}

extension Simulator {
    /// Routes `/management/v1/counter/{id}/logrequest(s)/…`; `fault` is a Logs fault that hit it.
    func routeLogs(_ request: HTTPRequest, _ parts: [String], fault: Fault.Kind? = nil) -> HTTPResponse {
        let caller: TokenFixture
        switch authorize(request) {
        case .rejected(let response): return response
        case .authorized(let token): caller = token
        }
        let counter: CounterFixture
        switch readableCounter(parts[3], by: caller) {
        case .failure(let error): return error.response
        case .success(let found): counter = found
        }
        let tail = Array(parts.dropFirst(4))
        switch (request.method, tail.count) {
        case ("GET", 2) where tail == ["logrequests", "evaluate"]:
            return evaluateLogRequest(request, counter: counter)
        case ("GET", 1) where tail[0] == "logrequests":
            let records = state.withLock { $0.logs.requests.values.filter { $0.counterID == counter.id } }
            let documents = records.sorted { $0.id < $1.id }.map(logRequestDocument)
            return .json(200, .object([("requests", .array(documents))]))
        case ("POST", 1) where tail[0] == "logrequests":
            return createLogRequest(request, counter: counter)
        case ("GET", 2) where tail[0] == "logrequest":
            return logRequestInfo(tail[1], counter: counter, failing: fault == .logsProcessingFailed)
        case ("POST", 3) where tail[0] == "logrequest" && (tail[2] == "clean" || tail[2] == "cancel"):
            return finishLogRequest(tail[1], counter: counter, action: tail[2])
        case ("GET", 5) where tail[0] == "logrequest" && tail[2] == "part" && tail[4] == "download":
            return downloadPart(tail[1], part: tail[3], counter: counter, cut: fault == .logsCutPart)
        default:
            return APIError.response(404, "not_found", "No such resource: \(request.path)")
        }
    }

    /// Reads date1, date2, source and fields; the error answer when one is missing or wrong.
    private func logParameters(_ request: HTTPRequest, counter: CounterFixture) -> Result<
        (LogRowWriter.LogSource, Day, Day, [String]), ResponseError
    > {
        let items = Dictionary(request.queryItems, uniquingKeysWith: { first, _ in first })
        for name in ["date1", "date2", "source", "fields"] where (items[name] ?? "").isEmpty {
            return .failure(ResponseError(APIError.missingParameter(name)))
        }
        guard let source = LogRowWriter.LogSource(rawValue: items["source"]!) else {
            return .failure(
                ResponseError(APIError.invalidParameter("Invalid value of parameter source: must be visits or hits")))
        }
        guard let date1 = Day(items["date1"]!), let date2 = Day(items["date2"]!) else {
            return .failure(ResponseError(APIError.invalidParameter("Invalid date: use YYYY-MM-DD")))
        }
        let today = CounterClock(now: now(), timeZone: counter.timeZone).today
        guard date1 <= date2 else {
            return .failure(ResponseError(APIError.invalidParameter("date1 must not be after date2")))
        }
        guard date2 < today else {
            return .failure(ResponseError(APIError.invalidParameter("Incorrect date2: it must be before today")))
        }
        guard date1.distance(to: date2) < 366 else {
            return .failure(ResponseError(APIError.invalidParameter("The period must not be longer than one year")))
        }
        let fieldsText = items["fields"]!
        guard fieldsText.count <= 3000 else {
            return .failure(ResponseError(APIError.invalidParameter("fields must not be longer than 3000 characters")))
        }
        let fields = fieldsText.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        for field in fields where !field.hasPrefix(source.prefix) || field.count == source.prefix.count {
            return .failure(
                ResponseError(APIError.invalidParameter("Unknown field \(field) for source \(source.rawValue)")))
        }
        return .success((source, date1, date2, fields))
    }

    func evaluateLogRequest(_ request: HTTPRequest, counter: CounterFixture) -> HTTPResponse {
        switch logParameters(request, counter: counter) {
        case .failure(let error): return error.response
        case .success((_, let date1, let date2, _)):
            let days = date1.distance(to: date2) + 1
            let maximum = options.logsMaxDays
            let evaluation: JSONValue = .object([
                ("possible", .bool(days <= maximum)), ("max_possible_day_quantity", .int(maximum))
            ])
            return .json(200, .object([("log_request_evaluation", evaluation)]))
        }
    }

    func createLogRequest(_ request: HTTPRequest, counter: CounterFixture) -> HTTPResponse {
        switch logParameters(request, counter: counter) {
        case .failure(let error): return error.response
        case .success((let source, let date1, let date2, let fields)):
            guard date1.distance(to: date2) + 1 <= options.logsMaxDays else {
                return APIError.invalidParameter("The log request is too large: evaluate it and split the period")
            }
            let clock = CounterClock(now: now(), timeZone: counter.timeZone)
            let rows = (0...date1.distance(to: date2)).map { offset -> Int in
                if let fixed = options.logsRowsPerDay { return fixed }
                let figures = model.figures(counter, on: date1.advanced(by: offset), clock: clock)
                return source == .visits ? figures.visits : figures.pageviews
            }
            let record = state.withLock { s -> LogRequestRecord in
                let record = LogRequestRecord(
                    id: s.logs.nextID, counterID: counter.id, source: source, date1: date1, date2: date2,
                    fields: fields,
                    status: "created", rowsPerDay: rows)
                s.logs.nextID += 1
                s.logs.requests[record.id] = record
                return record
            }
            return .json(200, .object([("log_request", logRequestDocument(record))]))
        }
    }

    private func record(_ idText: String, counter: CounterFixture) -> Result<LogRequestRecord, ResponseError> {
        guard let id = Int(idText), let record = state.withLock({ $0.logs.requests[id] }),
            record.counterID == counter.id
        else {
            return .failure(ResponseError(APIError.response(404, "not_found", "Log request \(idText) not found")))
        }
        return .success(record)
    }

    func logRequestInfo(_ idText: String, counter: CounterFixture, failing: Bool) -> HTTPResponse {
        guard let id = Int(idText) else {
            return APIError.response(404, "not_found", "Log request \(idText) not found")
        }
        let ready = options.logsReadyPolls
        let updated = state.withLock { s -> LogRequestRecord? in
            guard var record = s.logs.requests[id], record.counterID == counter.id else { return nil }
            if record.status == "created" {
                record.polls += 1
                if failing {
                    record.status = "processing_failed"
                } else if record.polls >= ready {
                    record.status = "processed"
                }
                s.logs.requests[id] = record
            }
            return record
        }
        guard let updated else { return APIError.response(404, "not_found", "Log request \(idText) not found") }
        return .json(200, .object([("log_request", logRequestDocument(updated))]))
    }

    func finishLogRequest(_ idText: String, counter: CounterFixture, action: String) -> HTTPResponse {
        switch record(idText, counter: counter) {
        case .failure(let error): return error.response
        case .success(let found):
            if action == "cancel", found.status != "created" {
                return APIError.invalidParameter("Only a log request in status 'created' can be canceled")
            }
            if action == "clean", found.status != "processed" {
                return APIError.invalidParameter("Only a log request in status 'processed' can be cleaned")
            }
            let status = action == "clean" ? "cleaned_by_user" : "canceled"
            let updated = state.withLock { s -> LogRequestRecord in
                s.logs.requests[found.id]?.status = status
                return s.logs.requests[found.id]!
            }
            return .json(200, .object([("log_request", logRequestDocument(updated))]))
        }
    }

    /// Streams part `partText` as chunked TSV, generated row by row; `cut` stops it half-way and
    /// closes the connection without the final chunk.
    func downloadPart(_ idText: String, part partText: String, counter: CounterFixture, cut: Bool) -> HTTPResponse {
        let found: LogRequestRecord
        switch record(idText, counter: counter) {
        case .failure(let error): return error.response
        case .success(let record): found = record
        }
        guard found.status == "processed" else {
            return APIError.invalidParameter("Only log of requests in status 'processed' can be downloaded")
        }
        let ranges = partRanges(found)
        guard let number = Int(partText), ranges.indices.contains(number) else {
            return APIError.response(404, "not_found", "Part \(partText) of log request \(idText) not found")
        }
        let range = ranges[number]
        let quirks = options.logsQuirks
        let writer = LogRowWriter(counter: counter, source: found.source, fields: found.fields, quirks: quirks)
        let rowsPerDay = found.rowsPerDay
        let date1 = found.date1
        let stopAt = cut ? range.lowerBound + range.count / 2 : range.upperBound
        var response = HTTPResponse(status: 200, contentType: "text/tab-separated-values; charset=utf-8")
        response.streamedBody = { emit in
            var buffer = writer.header
            buffer.reserveCapacity(80 * 1024)
            // Find the day and the index in it of the part's first row.
            var dayOffset = 0
            var index = range.lowerBound
            while dayOffset < rowsPerDay.count, index >= rowsPerDay[dayOffset] {
                index -= rowsPerDay[dayOffset]
                dayOffset += 1
            }
            var row = range.lowerBound
            while row < stopAt {
                while index >= rowsPerDay[dayOffset] {
                    index = 0
                    dayOffset += 1
                }
                writer.appendRow(day: date1.advanced(by: dayOffset), index: index, into: &buffer)
                if quirks.contains(.brokenRow), row == range.lowerBound + 1 {
                    // A raw tab inside the row's last value: one field too many.
                    buffer.removeLast(quirks.contains(.crlf) ? 2 : 1)
                    buffer.append(contentsOf: Array("\traw tab".utf8) + Array(writer.lineEnd.utf8))
                }
                index += 1
                row += 1
                if buffer.count >= 64 * 1024 {
                    guard emit(buffer) else { return false }
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            if quirks.contains(.noFinalNewline), stopAt == range.upperBound, buffer.count > 2 {
                buffer.removeLast(quirks.contains(.crlf) ? 2 : 1)
            }
            if !buffer.isEmpty { guard emit(buffer) else { return false } }
            return !cut
        }
        return response
    }

    /// The global row ranges of each part.
    func partRanges(_ record: LogRequestRecord) -> [Range<Int>] {
        let total = record.totalRows
        let size = max(1, options.logsPartRows)
        guard total > 0 else { return [0..<0] }
        return stride(from: 0, to: total, by: size).map { $0..<min(total, $0 + size) }
    }

    func logRequestDocument(_ record: LogRequestRecord) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("request_id", .int(record.id)),
            ("counter_id", .int(record.counterID)),
            ("source", .string(record.source.rawValue)),
            ("date1", .string(record.date1.string)),
            ("date2", .string(record.date2.string)),
            ("fields", .array(record.fields.map(JSONValue.string))),
            ("status", .string(record.status)),
            ("attribution", .string("LASTSIGN"))
        ]
        if record.status == "processed" {
            // Sizes are estimates (a row is about 40 bytes a field); the client only shows them.
            let rowBytes = 40 * record.fields.count
            let parts = partRanges(record).enumerated().map { number, range -> JSONValue in
                .object([("part_number", .int(number)), ("size", .int(range.count * rowBytes))])
            }
            pairs.append(("size", .int(record.totalRows * rowBytes)))
            pairs.append(("parts", .array(parts)))
        }
        return .object(pairs)
    }
}
