import Foundation
import MetrikaRender
import Testing

@testable import MetrikaMCP

/// The JSON-RPC envelope and tools/call parameters, typed from the value the bounded parser gave.
@Suite struct JSONValueDecoderTests {
    func value(_ line: String) throws -> JSONValue { try BoundedJSONParser.parse(Array(line.utf8)).value }

    @Test func theEnvelopeTellsAbsentFromNullFromTheWrongType() throws {
        let request = try JSONValueDecoder.decode(
            JSONRPCEnvelope.self, from: value(#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}"#))
        #expect(
            request.jsonrpc == "2.0" && request.id == .number(7) && request.params == .object([]) && !request.isResponse
        )
        guard case .value("ping") = request.method else {
            Issue.record("method: \(request.method)")
            return
        }
        let null = try JSONValueDecoder.decode(
            JSONRPCEnvelope.self, from: value(#"{"jsonrpc":null,"id":null,"method":null,"params":null}"#))
        #expect(null.jsonrpc == nil && null.id == .null && null.params == .null)
        guard case .wrongType = null.method else {
            Issue.record("method: \(null.method)")
            return
        }
        let response = try JSONValueDecoder.decode(
            JSONRPCEnvelope.self, from: value(#"{"jsonrpc":"2.0","id":"a","error":null}"#))
        #expect(response.isResponse && response.id == .string("a"))
        guard case .absent = response.method else {
            Issue.record("method: \(response.method)")
            return
        }
        #expect(throws: DecodingError.self) { try JSONValueDecoder.decode(JSONRPCEnvelope.self, from: value("[1]")) }
        // A repeated member counts by its last value.
        let repeated = try JSONValueDecoder.decode(
            JSONRPCEnvelope.self, from: value(#"{"jsonrpc":"1.0","jsonrpc":"2.0","method":"a","method":"b"}"#))
        #expect(repeated.jsonrpc == "2.0")
        guard case .value("b") = repeated.method else {
            Issue.record("method: \(repeated.method)")
            return
        }
    }

    @Test func toolCallArgumentsKeepTheirOrderAndRepeats() throws {
        let line =
            #"{"name":"get_report","arguments":{"limit":5,"counter_ids":[1],"limit":6},"_meta":{"progressToken":"p"}}"#
        let call = try JSONValueDecoder.decode(ToolCallParams.self, from: value(line))
        #expect(call.name == "get_report" && call.progressToken == .string("p"))
        guard case .value(.object(let members)) = call.arguments else {
            Issue.record("arguments: \(call.arguments)")
            return
        }
        #expect(members.map(\.0) == ["limit", "counter_ids", "limit"])
        let bare = try JSONValueDecoder.decode(ToolCallParams.self, from: value(#"{"name":5,"_meta":3}"#))
        #expect(bare.name == nil && bare.progressToken == nil)
        guard case .absent = bare.arguments else {
            Issue.record("arguments: \(bare.arguments)")
            return
        }
    }

    @Test func theProtocolsOwnParamsAreTyped() throws {
        let stateless = ProtocolParams.of(
            try value(
                #"""
                {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}},
                 "cursor": null, "requestId": 7}
                """#))
        guard case .value(let meta) = stateless.meta, case .value("2026-07-28") = meta.protocolVersion else {
            Issue.record("meta: \(stateless.meta)")
            return
        }
        #expect(
            meta.hasVersion && meta.hasClientCapabilities && stateless.cursor == nil
                && stateless.requestID == .number(7))
        #expect(
            MCPRevision.hasStatelessEnvelope(try value(#"{"_meta": {"io.modelcontextprotocol/protocolVersion": 5}}"#)))
        // A handshake-era _meta (a progress token) is no envelope; nor is a _meta that is no object.
        #expect(!MCPRevision.hasStatelessEnvelope(try value(#"{"_meta": {"progressToken": 1}}"#)))
        #expect(!MCPRevision.hasStatelessEnvelope(try value(#"{"_meta": 3}"#)))
        #expect(!MCPRevision.hasStatelessEnvelope(nil))
        let handshake = ProtocolParams.of(try value(#"{"protocolVersion": "2025-11-25", "cursor": "c", "_meta": []}"#))
        #expect(handshake.protocolVersion == "2025-11-25" && handshake.cursor == .string("c"))
        guard case .wrongType = handshake.meta else {
            Issue.record("meta: \(handshake.meta)")
            return
        }
        #expect(ProtocolParams.of(try value("[1]")).protocolVersion == nil)
        #expect(ProtocolParams.of(try value(#"{"protocolVersion": 2025}"#)).protocolVersion == nil)
    }

    @Test func numbersDecodeOnlyIntoTypesThatHoldThem() throws {
        struct Numbers: Decodable {
            var whole: Int
            var small: [UInt8]
            var ratio: Double
            var flag: Bool?
        }
        let numbers = try JSONValueDecoder.decode(
            Numbers.self, from: value(#"{"whole":41.0,"small":[1,255],"ratio":0.5}"#))
        #expect(numbers.whole == 41 && numbers.small == [1, 255] && numbers.ratio == 0.5 && numbers.flag == nil)
        for line in [
            #"{"whole":1.5,"small":[],"ratio":0}"#, #"{"whole":1,"small":[256],"ratio":0}"#,
            #"{"whole":"1","small":[],"ratio":0}"#,
            #"{"whole":1,"small":[],"ratio":true}"#, #"{"small":[],"ratio":0}"#
        ] {
            #expect(throws: DecodingError.self, "\(line)") {
                try JSONValueDecoder.decode(Numbers.self, from: value(line))
            }
        }
    }

    @Test func aValueFromFoundationsDecoderIsTheSameValue() throws {
        let text = #"{"a":[1,2.5,null,true,"x"],"b":{"c":{}}}"#
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(decoded["a"] == .array([.number(1), .number(2.5), .null, .bool(true), .string("x")]))
        #expect(decoded["b"] == .object([("c", .object([]))]))
    }
}
