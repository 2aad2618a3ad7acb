import Foundation

// MARK: - /__sim/ control API (no auth, never logged)

extension Simulator {
    func handleControl(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("POST", "/__sim/faults"):
            let document: JSONValue
            do {
                document = try JSONValue.parse(request.body)
            } catch {
                return controlError("the body is not JSON: \(error)")
            }
            // A list queues several faults at once, in order.
            let specs = document.arrayValue ?? [document]
            var faults: [Fault] = []
            for spec in specs {
                do {
                    faults.append(try Fault.parse(spec))
                } catch {
                    return controlError(error.message)
                }
            }
            let queued = state.withLock { s -> Int in
                s.faults.append(contentsOf: faults)
                return s.faults.count
            }
            return .json(200, .object([("status", .string("ok")), ("queued", .int(queued))]))
        case ("GET", "/__sim/faults"):
            let faults = state.withLock { $0.faults }
            return .json(200, .object([("faults", .array(faults.map(\.document)))]))
        case ("DELETE", "/__sim/faults"):
            state.withLock { $0.faults.removeAll() }
            return .json(200, .object([("status", .string("ok"))]))
        case ("GET", "/__sim/log"):
            let entries = state.withLock { $0.log }
            return .json(200, .object([("requests", .array(entries.map(\.document)))]))
        case ("POST", "/__sim/reset"):
            state.withLock {
                $0.log.removeAll()
                $0.faults.removeAll()
            }
            return .json(200, .object([("status", .string("ok"))]))
        case ("GET", "/__sim/quota"):
            return .json(200, quotaDocument())
        case ("POST", "/__sim/quota"), ("POST", "/__sim/clock"):
            guard let document = try? JSONValue.parse(request.body) else {
                return controlError("the body is not JSON")
            }
            return request.path == "/__sim/clock" ? setClock(document) : spendQuota(document)
        case ("GET", "/__sim/health"):
            return .json(200, .object([("status", .string("ok"))]))
        default:
            return .json(
                404,
                .object([
                    ("error", .string("not_found")),
                    (
                        "message",
                        .string(
                            "control endpoints: POST /__sim/faults, GET /__sim/faults, DELETE /__sim/faults, GET /__sim/log, POST /__sim/reset, GET /__sim/health, GET/POST /__sim/quota, POST /__sim/clock"
                        )
                    )
                ]))
        }
    }

    private func controlError(_ message: String) -> HTTPResponse {
        .json(400, .object([("error", .string("invalid_fault")), ("message", .string(message))]))
    }

    /// Takes one hit from the first queued fault that matches `path`.
    func takeFault(for path: String) -> Fault? {
        state.withLock { s -> Fault? in
            guard let index = s.faults.firstIndex(where: { $0.matches(path: path) }) else { return nil }
            let fault = s.faults[index]
            s.faults[index].remaining -= 1
            if s.faults[index].remaining <= 0 { s.faults.remove(at: index) }
            return fault
        }
    }

    // MARK: - Applying a fault

    func respond(to request: HTTPRequest, under fault: Fault) -> HTTPResponse {
        switch fault.kind {
        case .quota:
            return APIError.response(
                fault.status, fault.errorType, Simulator.quotaMessage(fault.errorType, path: request))
        case .backendError:
            return APIError.response(503, "backend_error", "Internal backend error, please try again later")
        case .timeout:
            return APIError.response(
                504, "timeout", "Query execution timeout. Please reduce the date interval or sampling.")
        case .delay:
            Thread.sleep(forTimeInterval: Double(fault.delayMilliseconds) / 1000)
            return route(request)
        case .cut:
            var response = route(request)
            response.truncatedBodyLength = response.body.count / 2
            return response
        case .html502:
            let page = """
                <html>\r
                <head><title>502 Bad Gateway</title></head>\r
                <body>\r
                <center><h1>502 Bad Gateway</h1></center>\r
                <hr><center>nginx</center>\r
                </body>\r
                </html>\r

                """
            return HTTPResponse(status: 502, contentType: "text/html", body: Array(page.utf8))
        case .empty200:
            return HTTPResponse(status: 200, contentType: "application/json; charset=utf-8", body: [])
        case .malformedJSON:
            var response = route(request)
            let cut = max(1, response.body.count * 2 / 3)
            response.body = Array(response.body.prefix(cut))
            // A document of one or two bytes could still be valid; make sure it is not.
            response.body.append(contentsOf: Array(",\"".utf8))
            response.status = 200
            response.document = nil
            response.documentBuilder = nil
            return response
        case .wrongTypes:
            return distorted(route(request), by: Simulator.wrongTypes)
        case .hugeNumbers:
            return distorted(route(request), by: Simulator.hugeNumbers)
        case .nanStrings:
            return distorted(route(request), by: Simulator.nanStrings)
        case .nonUTF8:
            var response = route(request)
            response.status = 200
            response.body = Simulator.insertInvalidUTF8(into: response.body)
            return response
        case .deepNesting:
            var response = route(request)
            response.status = 200
            response.body = Simulator.nestingDeeply(response.body, depth: 1_000_000)
            response.document = nil
            response.documentBuilder = nil
            return response
        case .loneSurrogate:
            var response = route(request)
            response.body = Simulator.insertingLoneSurrogate(into: response.body)
            response.document = nil
            response.documentBuilder = nil
            return response
        case .shape:
            return respond(to: request, shape: fault.shape)
        case .replay:
            return HTTPResponse(status: fault.status, contentType: "application/json; charset=utf-8", body: fault.body)
        case .lyingPaging:
            return respondLyingAboutPaging(to: request, fullPages: fault.fullPages)
        case .oauthSlowDown:
            return .json(
                400,
                .object([
                    ("error", .string("slow_down")),
                    ("error_description", .string("Polling too frequently, increase the interval"))
                ]))
        case .oauthAccessDenied:
            return .json(
                400,
                .object([
                    ("error", .string("access_denied")),
                    ("error_description", .string("The user denied access to the application"))
                ]))
        case .logsProcessingFailed, .logsCutPart:
            return routeLogs(request, request.path.split(separator: "/").map(String.init), fault: fault.kind)
        case .expireToken:
            let token = request.header("authorization")?.split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
            let issued = state.withLock { s -> Bool in
                guard s.oauth.issued[token] != nil else { return false }
                s.oauth.issued[token]?.valid = false
                return true
            }
            // An issued token is now refused like any expired one; a fixture token this once.
            return issued ? route(request) : APIError.invalidToken()
        case .hostileNames, .hostileAPIError, .hostileDeviceCode, .hostileOAuthError:
            return hostileText(request, under: fault)
        }
    }

    static func quotaMessage(_ type: String, path request: HTTPRequest) -> String {
        switch type {
        case "quota_requests_by_ip":
            return "Quota exceeded: too many requests per second from one IP address (limit 30)"
        case "quota_parallel_requests":
            return "Quota exceeded: too many parallel requests (limit 3 per user)"
        case "quota_requests_by_uid":
            return "Quota exceeded: daily request limit for the user (5000); the quota resets at 00:00 GMT"
        default:
            let ids = request.queryItems.first(where: { $0.0 == "ids" || $0.0 == "id" })?.1
            let which = ids.map { "counter \($0)" } ?? "the counter"
            return "Quota exceeded: daily request limit for \(which); the quota resets at 00:00 GMT"
        }
    }

    private func distorted(_ response: HTTPResponse, by transform: (JSONValue) -> JSONValue) -> HTTPResponse {
        guard let document = response.sourceDocument else { return response }
        var result = HTTPResponse.json(200, transform(document))
        result.headers = response.headers
        return result
    }

    // MARK: - Body distortions

    /// Where metric values live in a Reporting API answer.
    private static let metricKeys: Set<String> = ["metrics", "totals", "min", "max"]

    /// Strings where numbers belong, and row lists turned into objects.
    static func wrongTypes(_ document: JSONValue) -> JSONValue {
        func walk(_ value: JSONValue, key: String?) -> JSONValue {
            switch value {
            case .int(let i): return .string(String(i))
            case .double(let d): return .string(d.description)
            case .bool(let b): return .string(b ? "yes" : "no")
            case .array(let items):
                let mapped = items.map { walk($0, key: nil) }
                if key == "data" || key == "counters" || key == "goals" {
                    return .object(mapped.enumerated().map { (String($0.offset), $0.element) })
                }
                return .array(mapped)
            case .object(let pairs):
                return .object(pairs.map { ($0.0, walk($0.1, key: $0.0)) })
            default: return value
            }
        }
        var result = walk(document, key: nil)
        if case .int(let rows)? = document["rows"] {
            result = result.setting("rows", to: .object([("count", .string(String(rows)))]))
        }
        return result
    }

    /// Metric values (or, outside reports, every number) as 1e308 and a 30-digit integer.
    static func hugeNumbers(_ document: JSONValue) -> JSONValue {
        var flip = false
        let isReport = document["data"] != nil && document["totals"] != nil
        func huge() -> JSONValue {
            flip.toggle()
            return flip ? .rawNumber("1e308") : .rawNumber("123456789012345678901234567890")
        }
        func walk(_ value: JSONValue, inMetrics: Bool) -> JSONValue {
            switch value {
            case .int, .double: return inMetrics ? huge() : value
            case .array(let items): return .array(items.map { walk($0, inMetrics: inMetrics) })
            case .object(let pairs):
                return .object(pairs.map { ($0.0, walk($0.1, inMetrics: inMetrics || metricKeys.contains($0.0))) })
            default: return value
            }
        }
        return walk(document, inMetrics: !isReport)
    }

    /// Metric values as the strings "NaN", "Infinity", "-Infinity".
    static func nanStrings(_ document: JSONValue) -> JSONValue {
        let words = ["NaN", "Infinity", "-Infinity"]
        var next = 0
        let isReport = document["data"] != nil && document["totals"] != nil
        func walk(_ value: JSONValue, inMetrics: Bool) -> JSONValue {
            switch value {
            case .int, .double:
                guard inMetrics else { return value }
                defer { next += 1 }
                return .string(words[next % words.count])
            case .array(let items): return .array(items.map { walk($0, inMetrics: inMetrics) })
            case .object(let pairs):
                return .object(pairs.map { ($0.0, walk($0.1, inMetrics: inMetrics || metricKeys.contains($0.0))) })
            default: return value
            }
        }
        return walk(document, inMetrics: !isReport)
    }

    /// The body with invalid UTF-8 bytes inside the first `"name"` string (or the first string
    /// value when there is none).
    static func insertInvalidUTF8(into body: [UInt8]) -> [UInt8] {
        let invalid: [UInt8] = [0xFF, 0xFE, 0xC3, 0x28]
        let marker = Array("\"name\":\"".utf8)
        if let position = firstIndex(of: marker, in: body) {
            var result = body
            result.insert(contentsOf: invalid, at: position + marker.count)
            return result
        }
        let fallback = Array(":\"".utf8)
        if let position = firstIndex(of: fallback, in: body) {
            var result = body
            result.insert(contentsOf: invalid, at: position + fallback.count)
            return result
        }
        return Array("{\"name\":\"".utf8) + invalid + Array("\"}".utf8)
    }

    /// The body with a first member `"deep"` holding `depth` nested arrays (a bare array of them when
    /// the body is no object): valid JSON that a recursive parser without a limit dies on.
    static func nestingDeeply(_ body: [UInt8], depth: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(body.count + 2 * depth + 10)
        let isObject = body.first == UInt8(ascii: "{")
        if isObject { result.append(contentsOf: Array("{\"deep\":".utf8)) }
        result.append(contentsOf: repeatElement(UInt8(ascii: "["), count: depth))
        result.append(contentsOf: repeatElement(UInt8(ascii: "]"), count: depth))
        if isObject {
            let rest = body.dropFirst().drop { $0 == 0x20 || $0 == 0x0A }
            if rest.first != UInt8(ascii: "}") { result.append(UInt8(ascii: ",")) }
            result.append(contentsOf: rest)
        }
        return result
    }

    /// The body with the escape `\ud800` (half of a UTF-16 surrogate pair, alone) at the start of
    /// the first `"name"` string, or of the first string value when there is none.
    static func insertingLoneSurrogate(into body: [UInt8]) -> [UInt8] {
        let escape = Array("\\ud800".utf8)
        for marker in [Array("\"name\":\"".utf8), Array(":\"".utf8)] {
            if let position = firstIndex(of: marker, in: body) {
                var result = body
                result.insert(contentsOf: escape, at: position + marker.count)
                return result
            }
        }
        return Array("{\"name\":\"".utf8) + escape + Array("\"}".utf8)
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return start }
        }
        return nil
    }
}
