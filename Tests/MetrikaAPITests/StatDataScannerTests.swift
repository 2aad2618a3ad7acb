import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel

/// The fast `/stat/v1/data` reader must agree with `JSONDecoder` on every page it accepts, and give
/// way to it on everything else.
struct StatDataScannerTests {
    static func decoded(_ text: String) -> StatDataPage? {
        try? JSONDecoder().decode(
            StatDataPage.self, from: JSONPreflight.prepare(MetrikaClient.repairingInvalidUTF8(Data(text.utf8))))
    }

    @Test func documentedExampleReadsTheSameBothWays() throws {
        let scanned = try #require(try StatDataScanner.scan(Data(DecodingTests.documentedData.utf8)))
        #expect(scanned == Self.decoded(DecodingTests.documentedData))
        #expect(scanned.rowCount == 2 && scanned.totalRows == 5 && scanned.totals == [68274.0])
    }

    /// A random but plain page: the numbers, strings, escapes and unknown members the API may send.
    static func randomPage(_ random: inout SeededRandom) -> String {
        func number() -> String {
            switch random.next() % 9 {
            case 0: return "null"
            case 1: return String(random.next() % 100_000)
            case 2: return String(random.next() % 100_000) + ".0"
            case 3: return "\(random.next() % 1000).\(random.next() % 10_000)"
            case 4: return "-\(random.next() % 1000).\(random.next() % 100)"
            case 5: return "1.2345678901234567e\(Int(random.next() % 40) - 20)"
            case 6: return "0.\(random.next())"
            case 7: return "\(random.next())\(random.next() % 1000)"
            default: return "182.664"
            }
        }
        func string() -> String {
            let pieces = [
                "ромашка", "a,b", #"\""#, #"\\"#, #"\n"#, #"\u0041"#, #"\ud83d\ude00"#, "東京", " ", "x", #"\/"#, "🍜",
                #"\t"#,
                #"\ud83d"#, #"\ude00"#, #"\u0416"#, "=1", "👨‍👩‍👧"
            ]
            return "\""
                + (0..<Int(random.next() % 5)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
                + "\""
        }
        func nameValue() -> String { random.next() % 7 == 0 ? "null" : string() }
        let metricsCount = Int(random.next() % 4) + 1
        var rows: [String] = []
        for _ in 0..<Int(random.next() % 6) {
            let dimensions = (0..<Int(random.next() % 3)).map { _ -> String in
                var members = ["\"name\": \(nameValue())"]
                if random.next() % 2 == 0 { members.append("\"id\":\(nameValue())") }
                if random.next() % 3 == 0 { members.append(#""favicon": {"url": [1, 2.5, true, null, "z"]}"#) }
                return "{" + members.joined(separator: ",") + "}"
            }
            let metrics = (0..<metricsCount).map { _ in number() }
            rows.append(
                #"{"dimensions": [\#(dimensions.joined(separator: ", "))],"metrics":[\#(metrics.joined(separator: ","))]}"#
            )
        }
        let totals = (0..<metricsCount).map { _ in number() }
        return """
            {"query": {"ids": [1], "metrics": ["ym:s:visits"], "dimensions": [], "date1": "2026-01-01", "extra": {"a": [[]]}},
             "data": [\(rows.joined(separator: ",\n  "))],
             "total_rows": \(random.next() % 1000), "sampled": \(random.next() % 2 == 0 ? "true" : "false"),
             "sample_share": \(number()), "data_lag": \(number()), "totals": [\(totals.joined(separator: ","))],
             "min": [1], "contains_sensitive_data": false}\(random.next() % 2 == 0 ? "\n" : "")
            """
    }

    @Test func randomPlainPagesReadTheSameBothWays() throws {
        var random = SeededRandom(seed: 0x5CA9_0001)
        for _ in 0..<3_000 {
            let text = Self.randomPage(&random)
            let decoded = try #require(Self.decoded(text), "JSONDecoder refused: \(text)")
            let scanned = try #require(try StatDataScanner.scan(Data(text.utf8)), "the scanner refused: \(text)")
            #expect(scanned == decoded, "\(text)")
            #expect(Self.nameBytes(scanned) == Self.nameBytes(decoded), "\(text)")
        }
    }

    /// Both paths store the page the same way (`StatDataRows`), so comparing them cannot see a fault
    /// in that storage: the metric values, nulls included, are held to JSONSerialization's reading.
    @Test func metricValuesAndNullsAreTheDocumentsOwn() throws {
        var random = SeededRandom(seed: 0x5CA9_0002)
        var nulls = 0
        var read = 0
        for _ in 0..<500 {
            let text = Self.randomPage(&random)
            // JSONSerialization refuses lone surrogates in names, which the random pages hold: skip those.
            guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
                continue
            }
            read += 1
            let data = try #require(object["data"] as? [[String: Any]])
            let expected: [[Double?]] = data.map { row in
                ((row["metrics"] as? [Any]) ?? []).map { ($0 as? NSNumber)?.doubleValue }
            }
            nulls += expected.joined().filter { $0 == nil }.count
            let scanned = try #require(try StatDataScanner.scan(Data(text.utf8)))
            let decoded = try #require(Self.decoded(text))
            for page in [scanned, decoded] {
                let metrics = page.rows.map(\.metrics)
                #expect(metrics.count == expected.count)
                for (got, want) in zip(metrics, expected) {
                    // Nulls exactly; values closely (JSONSerialization's last bit is its own; the
                    // exact digits are held to the standard parser in exactDecimalsMatchTheStandardParser).
                    #expect(got.map { $0 == nil } == want.map { $0 == nil }, "\(text)")
                    for (value, reference) in zip(got, want) {
                        guard let value, let reference else { continue }
                        #expect(value == reference || abs(value - reference) <= abs(reference) * 1e-12, "\(text)")
                    }
                }
            }
        }
        #expect(
            read > 200 && nulls > 100, "the random pages should hold null metrics (\(read) pages read, \(nulls) nulls)")
    }

    /// Every dimension name's bytes as the page holds them (nil for null): `==` compares the text as
    /// Strings, which would repair bytes a broken fast path let through; this compares the bytes.
    static func nameBytes(_ page: StatDataPage) -> [[UInt8]?] {
        page.rows.flatMap { row in row.dimensions.map { $0.nameText?.withUTF8 { Array($0) } } }
    }

    /// The decoder's names as Strings, their UTF-8: what the scanner's bytes must be.
    static func decodedNameBytes(_ page: StatDataPage) -> [[UInt8]?] {
        page.rows.flatMap { row in row.dimensions.map { $0.name.map { Array($0.utf8) } } }
    }

    /// `UTF8Check` says yes exactly where `String(decoding:)` keeps the bytes unchanged: random
    /// runs of the bytes that matter (ASCII, continuation bytes, every kind of lead byte, the
    /// overlong and surrogate edges E0/ED/F0/F4, the never-valid C0/C1/F5–FF).
    @Test func theUTF8CheckAgreesWithTheStandardLibrary() {
        var random = SeededRandom(seed: 0x5CA9_0003)
        let interesting: [UInt8] = [
            0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
            0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF
        ]
        var valid = 0
        for _ in 0..<200_000 {
            let bytes = (0..<Int(random.next() % 7)).map { _ in
                interesting[Int(random.next() % UInt64(interesting.count))]
            }
            let kept = Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
            let checked = bytes.withUnsafeBufferPointer(UTF8Check.isValid)
            #expect(checked == kept, "\(bytes)")
            if checked != kept { return }
            if kept { valid += 1 }
        }
        // The edges were reached: well-formed multi-byte sequences were drawn too.
        #expect(valid > 10_000)
        for scalar in [0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF] {
            let bytes = Array(String(Character(Unicode.Scalar(UInt32(scalar))!)).utf8)
            #expect(bytes.withUnsafeBufferPointer(UTF8Check.isValid), "U+\(String(scalar, radix: 16))")
        }
    }

    /// Names in raw bytes the fast path must keep or hand on: Cyrillic, CJK, emoji, formula starts,
    /// commas and quotes; and what it must not keep: invalid UTF-8 (cut sequences, overlongs, encoded
    /// surrogates, bytes never valid) and escapes, lone surrogates included. The scanner's bytes are
    /// the UTF-8 of the decoder's Strings, byte for byte.
    @Test func namesInRawBytesAreTheDecodersText() throws {
        var random = SeededRandom(seed: 0x5CA9_0004)
        for _ in 0..<3_000 {
            let names = (0..<Int(random.next() % 6) + 1).map { _ in StatDataScannerTests.hostileName(&random) }
            let bytes = StatDataScannerTests.page(names: names)
            let data = Data(bytes)
            let scanned = try #require(try StatDataScanner.scan(data), "\(bytes)")
            let decoded = try #require(
                try? JSONDecoder().decode(
                    StatDataPage.self, from: JSONPreflight.prepare(MetrikaClient.repairingInvalidUTF8(data))))
            #expect(Self.nameBytes(scanned) == Self.decodedNameBytes(decoded), "\(bytes)")
            #expect(scanned == decoded)
        }
    }

    /// Raw bytes of one JSON string value (quotes included) or `null`, from pieces that each take
    /// a different path through the scanner.
    static func hostileName(_ random: inout SeededRandom) -> [UInt8] {
        if random.next() % 10 == 0 { return Array("null".utf8) }
        let pieces: [[UInt8]] = [
            Array("phrase".utf8), Array("купить слона".utf8), Array("東京".utf8), Array("😀".utf8), Array("👨‍👩‍👧".utf8),
            Array("e\u{301}".utf8),
            Array(",".utf8), Array(" ".utf8), Array("=SUM(A1)".utf8), Array("-1".utf8), Array("@".utf8),
            Array("'".utf8),
            Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\n"#.utf8), Array(#"\r\n"#.utf8), Array(#"\t"#.utf8),
            Array(#"\/"#.utf8),
            Array(#"\u0416"#.utf8), Array(#"\u001b"#.utf8), Array(#"\u202e"#.utf8), Array(#"\ud83d\ude00"#.utf8),
            Array(#"\ud83d"#.utf8), Array(#"\ude00"#.utf8), Array(#"\ud83dx"#.utf8),
            [0xFF], [0xC3], [0xC3, 0x28], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80],
            [0xF0, 0x9F, 0x98], [0x80], [0xC2, 0x85], [0xE2, 0x80, 0xA8], [0xEF, 0xBB, 0xBF]
        ]
        var name: [UInt8] = [UInt8(ascii: "\"")]
        for _ in 0..<Int(random.next() % 5) { name += pieces[Int(random.next() % UInt64(pieces.count))] }
        return name + [UInt8(ascii: "\"")]
    }

    /// A page with one row per name (and an id on every other row).
    static func page(names: [[UInt8]]) -> [UInt8] {
        var bytes = Array(#"{"query":{"metrics":["ym:s:visits"],"dimensions":["ym:s:searchPhrase"]},"data":["#.utf8)
        for (index, name) in names.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Array(#"{"dimensions":[{"name":"#.utf8) + name
            if index % 2 == 1 { bytes += Array(#","id":"x\#(index)""#.utf8) }
            bytes += Array(#"}],"metrics":[\#(index)]}"#.utf8)
        }
        return bytes + Array(#"],"total_rows":\#(names.count),"totals":[1]}"#.utf8)
    }

    @Test func mutatedPagesAreEitherRefusedOrReadExactlyLikeTheDecoder() {
        var random = SeededRandom(seed: 0x5CA9_0002)
        let alphabet = Array(#"{}[],:"\0123456789.-eE+ntrufalsx \#n"#.utf8) + [0xFF, 0xC3]
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = Array(Self.randomPage(&random).utf8)
            for _ in 0..<Int(random.next() % 3) + 1 where !bytes.isEmpty {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[position] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: position)
                }
            }
            let data = Data(bytes)
            guard let scanned = try? StatDataScanner.scan(data) else { continue }
            accepted += 1
            // As MetrikaClient.decode prepares a body: UTF-8 repaired, lone surrogates replaced.
            let decoded = try? JSONDecoder().decode(
                StatDataPage.self, from: JSONPreflight.prepare(MetrikaClient.repairingInvalidUTF8(data)))
            #expect(decoded == scanned, "\(String(decoding: bytes, as: UTF8.self))")
        }
        // Some mutations leave a valid page (a digit changed): those must have been compared.
        #expect(accepted > 1_000)
    }

    @Test(arguments: [
        #"{"data":[{"dimensions":[],"metrics":["NaN"]}]}"#, // non-numbers: the decoder says what is wrong
        #"{"data":[{"dimensions":[],"metrics":["12.5"]}]}"#, // numeric strings: tolerated by the decoder only
        #"{"data":[],"sampled":1}"#, // 0/1 booleans: tolerated by the decoder only
        #"{"data":[{"dimensions":[{"name":7}],"metrics":[]}]}"#, // numeric names
        #"{"data":[{"metrics":[1]}]}"#, // a row without dimensions
        #"{"total_rows":1}"#, // no data
        #"{"data":[]} x"#, // trailing garbage
        #"{"data":[1e999]}"#,
        #"{"data":[{"dimensions":[],"metrics":[01]}]}"#
    ])
    func unusualPagesAreLeftToTheDecoder(text: String) throws {
        #expect(try StatDataScanner.scan(Data(text.utf8)) == nil)
    }

    @Test func invalidUTF8IsRepairedLikeTheDecoderPath() throws {
        var bytes = Array(#"{"data":[{"dimensions":[{"name":"a"#.utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(#"b"}],"metrics":[1]}]}"#.utf8)
        let scanned = try #require(try StatDataScanner.scan(Data(bytes)))
        #expect(scanned.rows[0].dimensions[0].name == "a\u{FFFD}\u{FFFD}b")
        #expect(
            scanned
                == (try? JSONDecoder().decode(StatDataPage.self, from: MetrikaClient.repairingInvalidUTF8(Data(bytes))))
        )
    }

    @Test func exactDecimalsMatchTheStandardParser() throws {
        let numbers = [
            "0.1", "17.7786", "182.664", "2.385", "0.30000000000000004", "123456789012345", "1234567890123456789",
            "9007199254740993", "0.000001234", "99999999999999.99", "1e308", "5e-324", "-0.0"
        ]
        for text in numbers {
            let page = try #require(
                try StatDataScanner.scan(Data(#"{"data":[{"dimensions":[],"metrics":[\#(text)]}]}"#.utf8)))
            #expect(page.rows[0].metrics[0] == Double(text), "\(text)")
        }
    }
}
