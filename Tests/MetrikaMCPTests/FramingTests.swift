import MetrikaMCP
import MetrikaRender
import Testing

func errorCode(_ answer: JSONValue) -> Double? {
    guard case .object(let members) = answer, let error = members.first(where: { $0.0 == "error" })?.1,
        case .object(let fields) = error, case .number(let code)? = fields.first(where: { $0.0 == "code" })?.1
    else { return nil }
    return code
}

func member(_ value: JSONValue, _ path: String...) -> JSONValue? {
    var current: JSONValue? = value
    for key in path {
        guard case .object(let members)? = current else { return nil }
        current = members.last { $0.0 == key }?.1
    }
    return current
}

@Suite struct BoundedJSONParserTests {
    @Test func readsEveryKindOfValueKeepingMemberOrder() throws {
        let value = try BoundedJSONParser.parse(
            #" {"b":[1,-2.5e2,true,false,null],"a":"x\"\u00e9\ud83d\ude00\n","c":{}} "#)
        #expect(
            value
                == .object([
                    ("b", .array([.number(1), .number(-250), .bool(true), .bool(false), .null])),
                    ("a", .string("x\"é😀\n")),
                    ("c", .object([]))
                ]))
    }

    @Test func keepsTheTopLevelIDsExactText() throws {
        for id in ["1", "1.0", "12345678901234567890", "-0", "\"a\\u0041\"", "1e3"] {
            let parsed = try BoundedJSONParser.parse(Array(#"{"params":{"id":99},"id":\#(id),"method":"ping"}"#.utf8))
            #expect(parsed.rawID == id)
        }
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"\u{01}\"", "\"\\x\"", "tru", "nul", "{}x", "\"\\u12\"",
        "[1 2]", "{\"a\":1,}"
    ])
    func refusesMalformedText(_ text: String) {
        #expect(throws: JSONParseError.self) { try BoundedJSONParser.parse(text) }
    }

    @Test func refusesInvalidUTF8AndDeepNestingWithoutTrapping() {
        #expect(throws: JSONParseError.self) { try BoundedJSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONParseError.self) { try BoundedJSONParser.parse(String(repeating: "[", count: 200_000)) }
        #expect(throws: JSONParseError.self) {
            try BoundedJSONParser.parse(
                String(repeating: "{\"a\":", count: 100) + "1" + String(repeating: "}", count: 100))
        }
        #expect(
            (try? BoundedJSONParser.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))) != nil
        )
    }

    @Test func loneSurrogatesReadAsReplacementCharacters() throws {
        #expect(try BoundedJSONParser.parse(#""\ud800x\udc00""#) == .string("\u{FFFD}x\u{FFFD}"))
    }

    /// Random bytes, and every truncation and byte flip of real messages: an answer or an error, never a trap.
    @Test func fuzzedInputNeverTraps() {
        var generator = SystemRandomNumberGenerator()
        let samples = [
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_report","arguments":{"counter_ids":[1001],"from":"2024-01-01","metrics":["visits"]},"_meta":{"progressToken":"p"}}}"#,
            #"{"jsonrpc":"2.0","id":"x\u00e9","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#
        ]
        var parsed = 0
        for sample in samples {
            let bytes = Array(sample.utf8)
            for cut in 0...bytes.count {
                if (try? BoundedJSONParser.parse(Array(bytes[..<cut]))) != nil { parsed += 1 }
            }
            for _ in 0..<2_000 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                _ = try? BoundedJSONParser.parse(mutated)
            }
        }
        for _ in 0..<3_000 {
            let noise = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? BoundedJSONParser.parse(noise)
        }
        #expect(parsed == 2, "only the whole messages parse among their truncations")
    }
}

@Suite struct LineFramerTests {
    @Test func cutsLinesAcrossChunksDroppingCRAndBlankLines() {
        var framer = LineFramer(maxLineBytes: 100)
        var frames = framer.feed(Array("{\"a\"".utf8))
        frames += framer.feed(Array(":1}\r\n\n  \n[2]\n{\"b\"".utf8))
        frames += framer.finish()
        #expect(frames == [.line(Array("{\"a\":1}".utf8)), .line(Array("[2]".utf8)), .line(Array("{\"b\"".utf8))])
    }

    @Test func aLineOverTheCapIsReportedOnceAndNotKept() {
        var framer = LineFramer(maxLineBytes: 10)
        var frames = framer.feed(Array(repeating: UInt8(ascii: "x"), count: 8))
        frames += framer.feed(Array(repeating: UInt8(ascii: "y"), count: 8))
        frames += framer.feed(Array(repeating: UInt8(ascii: "z"), count: 1_000))
        frames += framer.feed(Array("\n{}\n".utf8))
        #expect(frames == [.tooLong(idText: nil), .line(Array("{}".utf8))])
    }

    /// Issue 48: a request over the cap is answered with its own id when its edges name it (first
    /// members, or the last one as the official SDKs write it), so its client does not wait forever.
    @Test(arguments: [
        (#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":""#, #""}}"#, "42"),
        (#"{"method":"tools/call","params":{"id":1,"x":""#, #""},"jsonrpc":"2.0","id":"a\"b"}"#, #""a\"b""#),
        (#"{"method":"tools/call","params":{"x":""#, #""},"jsonrpc":"2.0","id": 7 }"#, "7"),
        (#"{"method":"tools/call","params":{"x":""#, #""}}"#, nil)
    ])
    func aLineOverTheCapKeepsTheIdOfItsEdges(start: String, end: String, id: String?) {
        var framer = LineFramer(maxLineBytes: 100)
        var frames = framer.feed(Array(start.utf8))
        frames += framer.feed(Array(repeating: UInt8(ascii: "z"), count: 50_000))
        frames += framer.feed(Array((end + "\n").utf8))
        #expect(frames == [.tooLong(idText: id)])
    }
}
