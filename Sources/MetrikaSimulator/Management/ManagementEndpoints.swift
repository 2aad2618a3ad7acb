import Foundation

// MARK: - Management API (metrika-api.md §1)

extension Simulator {
    /// `GET /management/v1/counters`: `{"rows": total, "counters": [...]}` with 1-based paging.
    func listCounters(_ request: HTTPRequest) -> HTTPResponse {
        let caller: TokenFixture
        switch authorize(request) {
        case .rejected(let response): return response
        case .authorized(let token): caller = token
        }
        var offset = 1
        var perPage = 1000
        var search: String?
        var wantDeleted = false
        var permissions: Set<String>?
        var favoriteOnly = false
        var fields: Set<String> = []
        for (name, value) in request.queryItems {
            switch name {
            case "offset":
                guard let n = Int(value), n >= 1 else {
                    return APIError.invalidParameter(
                        "Invalid value of parameter offset: \(value); it must be an integer >= 1")
                }
                offset = n
            case "per_page":
                guard let n = Int(value), n >= 1 else {
                    return APIError.invalidParameter(
                        "Invalid value of parameter per_page: \(value); it must be an integer >= 1")
                }
                perPage = n
            case "search_string":
                search = value.isEmpty ? nil : value.lowercased()
            case "status":
                switch value.lowercased() {
                case "active", "": wantDeleted = false
                case "deleted": wantDeleted = true
                default:
                    return APIError.invalidParameter(
                        "Invalid value of parameter status: \(value); expected Active or Deleted")
                }
            case "permission":
                let wanted = Set(
                    value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                if !wanted.isEmpty { permissions = wanted }
            case "favorite":
                favoriteOnly = value == "1" || value.lowercased() == "true"
            case "field":
                fields.formUnion(value.split(separator: ",").map { String($0) })
            default:
                continue // unknown parameters are ignored, as the real API does
            }
        }

        let matching = fixtures.counters.filter { counter in
            guard caller.canRead(counter.id), counter.isDeleted == wantDeleted else { return false }
            if let permissions, !permissions.contains(caller.permission(on: counter).lowercased()) { return false }
            if favoriteOnly, counter.document["favorite"]?.intValue != 1 { return false }
            if let search {
                let haystacks =
                    [String(counter.id), counter.name.lowercased(), counter.site.lowercased()]
                    + [counter.document["site2"]?["site"]?.stringValue?.lowercased() ?? ""]
                return haystacks.contains { $0.contains(search) }
            }
            return true
        }
        let page = matching.dropFirst(offset - 1).prefix(perPage)
        let documents = page.map { counter -> JSONValue in
            let permission = caller.permission(on: counter)
            let document =
                caller.ownsCounters ? counter.document.setting("permission", to: .string(permission)) : counter.document
            return fields.contains("goals")
                ? document.setting("goals", to: .array(counter.goals.map(\.document))) : document
        }
        return .json(200, .object([("rows", .int(matching.count)), ("counters", .array(documents))]))
    }

    /// `GET /management/v1/counter/{id}` → `{"counter": {...}}`.
    func showCounter(_ request: HTTPRequest, id: String) -> HTTPResponse {
        switch authorize(request) {
        case .rejected(let response): return response
        case .authorized(let caller):
            switch readableCounter(id, by: caller) {
            case .failure(let error): return error.response
            case .success(let counter):
                var document = counter.document
                if caller.ownsCounters {
                    document = document.setting("permission", to: .string(caller.permission(on: counter)))
                }
                let fields = request.queryItems.filter { $0.0 == "field" }.flatMap { $0.1.split(separator: ",") }
                if fields.contains("goals") {
                    document = document.setting("goals", to: .array(counter.goals.map(\.document)))
                }
                return .json(200, .object([("counter", document)]))
            }
        }
    }

    /// `GET /management/v1/counter/{id}/goals` → `{"goals": [...]}`.
    func listGoals(_ request: HTTPRequest, id: String) -> HTTPResponse {
        switch authorize(request) {
        case .rejected(let response): return response
        case .authorized(let caller):
            switch readableCounter(id, by: caller) {
            case .failure(let error): return error.response
            case .success(let counter):
                return .json(200, .object([("goals", .array(counter.goals.map(\.document)))]))
            }
        }
    }

    /// `GET /management/v1/accounts` → `{"accounts": [{"user_login", "created_at", "comment"}]}`: the
    /// accounts the login represents.
    func listAccounts(_ request: HTTPRequest) -> HTTPResponse {
        switch authorize(request) {
        case .rejected(let response): return response
        case .authorized(let caller):
            let accounts = caller.represents.map { login -> JSONValue in
                .object([
                    ("user_login", .string(login)), ("created_at", .string("2026-01-15T10:00:00+03:00")),
                    ("comment", .string(""))
                ])
            }
            return .json(200, .object([("accounts", .array(accounts))]))
        }
    }

    /// `GET /management/v1/counter/{id}/chart_annotations` → `{"chart_annotations": [...]}` (the
    /// fixture's `annotations`, each with an id, then those written while it runs). `POST` with
    /// `{"chart_annotation": {date, time, title, message, group}}` writes one, kept until the simulator stops.
    func chartAnnotations(_ request: HTTPRequest, id: String) -> HTTPResponse {
        switch authorize(request) {
        case .rejected(let response): return response
        case .authorized(let caller):
            switch readableCounter(id, by: caller) {
            case .failure(let error): return error.response
            case .success(let counter):
                if request.method == "POST" { return writeAnnotation(request, counter: counter) }
                let written = state.withLock { $0.annotations[counter.id] ?? [] }
                return .json(200, .object([("chart_annotations", .array(counter.annotations + written))]))
            }
        }
    }

    private func writeAnnotation(_ request: HTTPRequest, counter: CounterFixture) -> HTTPResponse {
        guard let document = try? JSONValue.parse(request.body), let note = document["chart_annotation"] else {
            return APIError.response(400, "invalid_parameter", "The body must be {\"chart_annotation\": {...}}")
        }
        guard let date = note["date"]?.stringValue, Day(date) != nil else {
            return APIError.response(400, "invalid_parameter", "date is required (YYYY-MM-DD)")
        }
        guard let title = note["title"]?.stringValue, !title.isEmpty, title.count <= 255 else {
            return APIError.response(400, "invalid_parameter", "title is required (at most 255 characters)")
        }
        let group = note["group"]?.stringValue ?? ""
        guard ["A", "B", "C", "D", "E"].contains(group) else {
            return APIError.response(400, "invalid_parameter", "group must be one of A, B, C, D, E")
        }
        let message = note["message"]?.stringValue ?? ""
        guard !(title + message).unicodeScalars.contains(where: { $0.value > 0xFFFF }) else {
            return APIError.response(400, "invalid_parameter", "Characters outside the BMP are not allowed")
        }
        let stored: JSONValue = state.withLock { state in
            let number = counter.id * 100 + 50 + (state.annotations[counter.id]?.count ?? 0)
            let object = JSONValue.object([
                ("id", .int(number)), ("date", .string(date)), ("time", note["time"] ?? .string("00:00:00")),
                ("title", .string(title)), ("message", .string(message)), ("group", .string(group))
            ])
            state.annotations[counter.id, default: []].append(object)
            return object
        }
        return .json(200, .object([("chart_annotation", stored)]))
    }
}
