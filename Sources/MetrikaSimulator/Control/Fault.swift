import Foundation

/// One injected failure, queued by `POST /__sim/faults`.
struct Fault: Sendable {
    /// What the matching request gets instead of (or on top of) its normal answer.
    enum Kind: String, CaseIterable, Sendable {
        case quota
        case backendError = "backend_error"
        case timeout
        case delay
        case cut
        case html502
        case empty200
        case malformedJSON = "malformed_json"
        case wrongTypes = "wrong_types"
        case hugeNumbers = "huge_numbers"
        case nanStrings = "nan_strings"
        case nonUTF8 = "non_utf8"
        case oauthSlowDown = "oauth_slow_down"
        case oauthAccessDenied = "oauth_access_denied"
        // MARK: Hostile text (terminal escapes, bidi controls, 100 KB lines, the token quoted back);
        // see HostileText.swift.
        case hostileNames = "hostile_names"
        case hostileAPIError = "hostile_api_error"
        case hostileDeviceCode = "hostile_device_code"
        case hostileOAuthError = "hostile_oauth_error"
        // Hostile parser input (inputs drills).
        /// The normal answer behind a first member nested 1,000,000 arrays deep.
        case deepNesting = "deep_nesting"
        /// The normal answer with a lone `\ud800` escape in the first `"name"` string.
        case loneSurrogate = "lone_surrogate"
        /// The answer in a shape real answers take (`shape`: see `AnswerShape`).
        case shape
        /// A body sent verbatim with `status` (a real API answer replayed byte for byte).
        case replay
        /// Pages that ignore `offset` and claim 10^12 rows (counters: new ids on every page).
        case lyingPaging = "lying_paging"
        // MARK: Logs API: the next info poll reports `processing_failed`; the next part download
        // stops half-way and closes the connection.
        case logsProcessingFailed = "logs_processing_failed"
        case logsCutPart = "logs_cut_part"
        // MARK: Tokens: the token of the matching request runs out there and then (a token issued
        // here is invalid from now on, its refresh token still works; a fixture token is refused once).
        case expireToken = "expire_token"

        /// OAuth faults only make sense for `POST /token` (or `/device/code`).
        var defaultPathPrefix: String? {
            switch self {
            case .oauthSlowDown, .oauthAccessDenied, .hostileOAuthError: return "/token"
            case .hostileDeviceCode: return "/device/code"
            default: return nil
            }
        }
    }

    static let quotaTypes = [
        "quota_requests_by_ip", "quota_parallel_requests", "quota_requests_by_uid", "quota_requests_by_counter_id"
    ]

    var kind: Kind
    /// Requests still to be hit.
    var remaining: Int
    /// Only requests whose path starts with this are hit; nil = any non-control path.
    var pathPrefix: String?
    /// And, when set, only requests whose path ends with this (`/part/1/download`).
    var pathSuffix: String?
    var errorType: String
    var status: Int
    var delayMilliseconds: Int
    var retryAfter: Int?
    /// The answer shape of a `shape` fault.
    var shape: AnswerShape = .minimal
    /// The body of a `replay` fault.
    var body: [UInt8] = []
    /// `lying_paging` with made-up full pages (`limit` rows, the same ones whatever the offset).
    var fullPages = false

    func matches(path: String) -> Bool {
        if let pathSuffix, !path.hasSuffix(pathSuffix) { return false }
        if kind == .logsCutPart { return path.hasSuffix("/download") && path.hasPrefix(pathPrefix ?? "") }
        if kind == .logsProcessingFailed {
            let parts = path.split(separator: "/")
            return parts.count == 6 && parts[4] == "logrequest" && path.hasPrefix(pathPrefix ?? "")
        }
        guard let prefix = pathPrefix ?? kind.defaultPathPrefix else { return true }
        return path.hasPrefix(prefix)
    }

    /// Reads the body of `POST /__sim/faults`; throws a message for the 400 answer.
    static func parse(_ document: JSONValue) throws(FaultSpecError) -> Fault {
        guard case .object = document else { throw FaultSpecError("the body must be a JSON object") }
        guard let kindName = document["kind"]?.stringValue else { throw FaultSpecError("\"kind\" is required") }
        guard let kind = Kind(rawValue: kindName) else {
            let known = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw FaultSpecError("unknown kind \(kindName); known kinds: \(known)")
        }
        let count = document["count"]?.intValue ?? 1
        guard count >= 1 else { throw FaultSpecError("\"count\" must be at least 1") }
        let errorType = document["error_type"]?.stringValue ?? "quota_requests_by_ip"
        if kind == .quota, !quotaTypes.contains(errorType) {
            throw FaultSpecError("error_type must be one of \(quotaTypes.joined(separator: ", "))")
        }
        let status = document["status"]?.intValue ?? 429
        if kind == .quota, status != 429, status != 420 {
            throw FaultSpecError("status for a quota fault must be 429 or 420")
        }
        let delay = document["delay_ms"]?.intValue ?? 3000
        guard (0...600_000).contains(delay) else { throw FaultSpecError("delay_ms must be 0...600000") }
        let retryAfter = document["retry_after"]?.intValue
        if let retryAfter, retryAfter < 0 { throw FaultSpecError("retry_after must not be negative") }
        var prefix = document["path_prefix"]?.stringValue
        if prefix?.isEmpty == true { prefix = nil }
        var fault = Fault(
            kind: kind, remaining: count, pathPrefix: prefix, errorType: errorType,
            status: kind == .replay ? (document["status"]?.intValue ?? 200) : status,
            delayMilliseconds: delay, retryAfter: retryAfter)
        fault.fullPages = document["full_pages"]?.boolValue ?? false
        fault.pathSuffix = document["path_suffix"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if kind == .shape {
            let name = document["shape"]?.stringValue ?? ""
            guard let shape = AnswerShape(rawValue: name) else {
                throw FaultSpecError(
                    "\"shape\" must be one of \(AnswerShape.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            fault.shape = shape
        }
        if kind == .replay {
            guard let body = document["body"]?.stringValue else {
                throw FaultSpecError("a replay fault needs \"body\" (a string)")
            }
            guard (100...599).contains(fault.status) else { throw FaultSpecError("status must be 100...599") }
            fault.body = Array(body.utf8)
        }
        return fault
    }

    /// The fault as `GET /__sim/faults` lists it.
    var document: JSONValue {
        var pairs: [(String, JSONValue)] = [("kind", .string(kind.rawValue)), ("count", .int(remaining))]
        pairs.append(("path_prefix", (pathPrefix ?? kind.defaultPathPrefix).map(JSONValue.string) ?? .null))
        if kind == .quota {
            pairs.append(("error_type", .string(errorType)))
            pairs.append(("status", .int(status)))
        }
        if kind == .delay { pairs.append(("delay_ms", .int(delayMilliseconds))) }
        if kind == .shape { pairs.append(("shape", .string(shape.rawValue))) }
        if kind == .replay { pairs.append(("status", .int(status))) }
        if kind == .lyingPaging { pairs.append(("full_pages", .bool(fullPages))) }
        if let retryAfter { pairs.append(("retry_after", .int(retryAfter))) }
        if let pathSuffix { pairs.append(("path_suffix", .string(pathSuffix))) }
        return .object(pairs)
    }
}

/// A fault specification the simulator cannot accept.
struct FaultSpecError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
