import MetrikaModel
import MetrikaRender

/// A request id as the client wrote it: echoed byte for byte (`raw`), compared by value (`key`, so
/// `notifications/cancelled` naming `7` finds the request sent as `7`).
package struct RequestID: Sendable, Hashable {
    /// The id's JSON text exactly as it arrived.
    package let raw: String
    /// `s:` + the string, or `n:` + the number's shortest decimal.
    package let key: String

    /// The id of a request: a string or a number (MCP allows no null id); nil for anything else.
    init?(value: JSONValue, raw: String?) {
        guard let key = Self.key(of: value) else { return nil }
        self.key = key
        self.raw = raw ?? JSONValue.serializedID(value)
    }

    /// The comparison key of an id value (as a cancellation or progress token names it).
    static func key(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): return "s:" + text
        case .number(let number) where number.isFinite: return "n:" + DecimalText.shortest(number)
        default: return nil
        }
    }
}

extension JSONValue {
    /// A string or number token (request id, progress token) written back as JSON.
    static func serializedID(_ value: JSONValue) -> String { value.serialized() }
}

/// The JSON-RPC error codes this server answers with.
package enum JSONRPCError {
    package static let parseError = -32700
    package static let invalidRequest = -32600
    package static let methodNotFound = -32601
    package static let invalidParams = -32602
    package static let internalError = -32603
    /// 2026-07-28: the request's protocol version is not one this server speaks.
    package static let unsupportedProtocolVersion = -32022
}

/// What one line from the client is.
enum IncomingMessage {
    case request(id: RequestID, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    /// A response to a request of ours (this server sends none, so it is ignored).
    case response
    /// Not a valid JSON-RPC 2.0 message: answered -32600 with the id when one could be read.
    case invalid(id: RequestID?, message: String)

    static func classify(_ value: JSONValue, rawID: String?) -> IncomingMessage {
        guard case .object = value else {
            if case .array = value {
                return .invalid(id: nil, message: "Invalid request: batches (JSON arrays) are not part of MCP; send one message per line")
            }
            return .invalid(id: nil, message: "Invalid request: a message must be a JSON object")
        }
        let idValue = value.rpcMember("id")
        let id = idValue.flatMap { RequestID(value: $0, raw: rawID) }
        guard value.rpcMember("jsonrpc")?.rpcString == "2.0" else {
            return .invalid(id: id, message: "Invalid request: \"jsonrpc\" must be \"2.0\"")
        }
        if idValue != nil, id == nil {
            return .invalid(id: nil, message: "Invalid request: an id must be a string or a number")
        }
        guard let methodValue = value.rpcMember("method") else {
            if id != nil, value.rpcMember("result") != nil || value.rpcMember("error") != nil { return .response }
            return .invalid(id: id, message: "Invalid request: no \"method\"")
        }
        guard let method = methodValue.rpcString else {
            return .invalid(id: id, message: "Invalid request: \"method\" must be a string")
        }
        let params = value.rpcMember("params")
        if let id { return .request(id: id, method: method, params: params) }
        return .notification(method: method, params: params)
    }
}

/// The lines this server writes.
enum JSONRPCLine {
    static func result(id: RequestID, _ result: JSONValue) -> String {
        var line = "{\"jsonrpc\":\"2.0\",\"id\":" + id.raw + ",\"result\":"
        result.write(to: &line, pretty: false, indent: 0)
        line += "}"
        return line
    }

    static func error(id: RequestID?, code: Int, message: String, data: JSONValue? = nil) -> String {
        var error: [(String, JSONValue)] = [("code", .number(Double(code))), ("message", .string(message))]
        if let data { error.append(("data", data)) }
        var line = "{\"jsonrpc\":\"2.0\",\"id\":" + (id?.raw ?? "null") + ",\"error\":"
        JSONValue.object(error).write(to: &line, pretty: false, indent: 0)
        line += "}"
        return line
    }

    static func notification(method: String, params: JSONValue) -> String {
        JSONValue.object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]).serialized()
    }
}

/// A request refused with a JSON-RPC error.
struct RPCFailure: Error {
    var code: Int
    var message: String
    var data: JSONValue?

    static func invalidParams(_ message: String) -> RPCFailure { RPCFailure(code: JSONRPCError.invalidParams, message: message) }
    static func invalidRequest(_ message: String) -> RPCFailure { RPCFailure(code: JSONRPCError.invalidRequest, message: message) }
    static func methodNotFound(_ method: String) -> RPCFailure {
        RPCFailure(code: JSONRPCError.methodNotFound, message: "Method not found: \(method)")
    }
}
