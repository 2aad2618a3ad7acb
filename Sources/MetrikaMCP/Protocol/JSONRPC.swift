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
    /// A request cancelled by `notifications/cancelled`, answered over HTTP (a POST needs an answer;
    /// the Python SDK's server sends the same).
    package static let requestCancelled = -32800
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
        guard let envelope = try? JSONValueDecoder.decode(JSONRPCEnvelope.self, from: value) else {
            if case .array = value {
                return .invalid(
                    id: nil,
                    message: "Invalid request: batches (JSON arrays) are not part of MCP; send one message per line")
            }
            return .invalid(id: nil, message: "Invalid request: a message must be a JSON object")
        }
        let id = envelope.id.flatMap { RequestID(value: $0, raw: rawID) }
        guard envelope.jsonrpc == "2.0" else {
            return .invalid(id: id, message: "Invalid request: \"jsonrpc\" must be \"2.0\"")
        }
        if envelope.id != nil, id == nil {
            return .invalid(id: nil, message: "Invalid request: an id must be a string or a number")
        }
        switch envelope.method {
        case .absent:
            if id != nil, envelope.isResponse { return .response }
            return .invalid(id: id, message: "Invalid request: no \"method\"")
        case .wrongType:
            return .invalid(id: id, message: "Invalid request: \"method\" must be a string")
        case .value(let method):
            if let id { return .request(id: id, method: method, params: envelope.params) }
            return .notification(method: method, params: envelope.params)
        }
    }
}

/// A member of a JSON-RPC message as decoded: left out, of the type it must be, or of another.
enum EnvelopeMember<Value: Decodable>: Decodable {
    case absent
    case value(Value)
    case wrongType

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = (try? container.decode(Value.self)).map(Self.value) ?? .wrongType
    }
}

extension KeyedDecodingContainer {
    /// The member `key`: `.absent` when the object has none (`null` is a value: of the wrong type,
    /// unless `Value` is `JSONValue`).
    func member<Value>(_ type: Value.Type, forKey key: Key) throws -> EnvelopeMember<Value> {
        guard contains(key) else { return .absent }
        return try decode(EnvelopeMember<Value>.self, forKey: key)
    }
}

/// One JSON-RPC 2.0 message's envelope (the members `IncomingMessage.classify` judges); `params`
/// stays a `JSONValue` for the method to type (`ToolCallParams`).
struct JSONRPCEnvelope: Decodable {
    /// `"2.0"` in a message of this protocol; nil when absent or not a string.
    var jsonrpc: String?
    /// The id as sent, `null` too (a string or a number makes a request; anything else is refused);
    /// nil when absent.
    var id: JSONValue?
    var method: EnvelopeMember<String>
    var params: JSONValue?
    /// Whether it carries `result` or `error`: a response to a request of ours.
    var isResponse: Bool

    private enum CodingKeys: String, CodingKey {
        case jsonrpc, id, method, params, result, error
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if case .value(let version) = try container.member(String.self, forKey: .jsonrpc) { jsonrpc = version }
        if case .value(let id) = try container.member(JSONValue.self, forKey: .id) { self.id = id }
        method = try container.member(String.self, forKey: .method)
        if case .value(let params) = try container.member(JSONValue.self, forKey: .params) { self.params = params }
        isResponse = container.contains(.result) || container.contains(.error)
    }
}

/// The members of a message's `params` the protocol itself reads (a method's own are its type's:
/// `ToolCallParams`).
struct ProtocolParams: Decodable {
    /// `initialize`'s requested version; nil when absent or not a string.
    var protocolVersion: String?
    /// `_meta`, where the 2026-07-28 envelope is (`.wrongType`: not an object).
    var meta: EnvelopeMember<EnvelopeMeta> = .absent
    /// `tools/list`'s cursor; nil when absent or null.
    var cursor: JSONValue?
    /// `notifications/cancelled`'s `requestId`.
    var requestID: JSONValue?

    private enum CodingKeys: String, CodingKey {
        case protocolVersion, cursor
        case meta = "_meta"
        case requestID = "requestId"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if case .value(let version) = try container.member(String.self, forKey: .protocolVersion) {
            protocolVersion = version
        }
        meta = try container.member(EnvelopeMeta.self, forKey: .meta)
        if case .value(let cursor) = try container.member(JSONValue.self, forKey: .cursor), cursor != .null {
            self.cursor = cursor
        }
        if case .value(let id) = try container.member(JSONValue.self, forKey: .requestID) { requestID = id }
    }

    /// The members of `params`; none when it is absent or no object.
    static func of(_ params: JSONValue?) -> ProtocolParams {
        params.flatMap { try? JSONValueDecoder.decode(ProtocolParams.self, from: $0) } ?? ProtocolParams()
    }
}

/// `_meta`'s members of the 2026-07-28 envelope.
struct EnvelopeMeta: Decodable {
    var protocolVersion: EnvelopeMember<String>
    var hasClientCapabilities: Bool

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        protocolVersion = try container.member(String.self, forKey: Key(MCPRevision.protocolVersionKey))
        hasClientCapabilities = container.contains(Key(MCPRevision.clientCapabilitiesKey))
    }

    /// Whether it carries the envelope's version key (a `_meta` with only `progressToken` does not).
    var hasVersion: Bool {
        if case .absent = protocolVersion { return false }
        return true
    }
}

/// `tools/call`'s parameters.
struct ToolCallParams: Decodable {
    /// The tool's name; nil when absent or not a string.
    var name: String?
    /// The arguments' members in the order sent (repeats kept: `ToolArguments.decode` refuses them).
    var arguments: EnvelopeMember<JSONValue>
    /// `_meta.progressToken`: where progress notifications go.
    var progressToken: JSONValue?

    private enum CodingKeys: String, CodingKey {
        case name, arguments
        case meta = "_meta"
    }

    private enum MetaKeys: String, CodingKey {
        case progressToken
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if case .value(let name) = try container.member(String.self, forKey: .name) { self.name = name }
        arguments = try container.member(JSONValue.self, forKey: .arguments)
        let meta = try? container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        if case .value(let token)? = try meta?.member(JSONValue.self, forKey: .progressToken) { progressToken = token }
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

    static func invalidParams(_ message: String) -> RPCFailure {
        RPCFailure(code: JSONRPCError.invalidParams, message: message)
    }
    static func invalidRequest(_ message: String) -> RPCFailure {
        RPCFailure(code: JSONRPCError.invalidRequest, message: message)
    }
    static func methodNotFound(_ method: String) -> RPCFailure {
        RPCFailure(code: JSONRPCError.methodNotFound, message: "Method not found: \(method)")
    }
}
