import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel

/// A seeded mutation fuzzer for everything that reads API answers: the wire types straight through
/// `JSONDecoder`, and the whole `MetrikaClient` path (status classification, error bodies, decoding,
/// paging). Deterministic (fixed seeds, SeededRandom) and bounded, so a failure replays exactly.
///
/// A Swift trap (index out of range, overflow, force unwrap, a failed precondition) kills the whole
/// test process: a crash shows up as the test run dying, and the seed and iteration in the last
/// lines printed identify the input. Everything that does not crash is checked for the promises
/// metrika makes about unreadable input: a typed error, one line of text, no invented numbers.
struct FuzzTests {
    static let iterations = 20_000

    // MARK: - Seeds: documented and realistic answers

    static let seeds: [String] = [
        #"{"rows": 2, "counters": [{"id": 880000, "status": "Active", "owner_login": "example-developer", "name": "counter_option test", "type": "simple", "favorite": 0, "permission": "view", "create_time": "2022-03-25T15:59:52+03:00", "time_zone_name": "Europe/Moscow", "time_zone_offset": 180, "site": "example-developer.ru", "site2": {"site": "example-developer.ru", "domain": "example-developer.ru"}}, {"id": "1001", "name": "Интернет-магазин «Ромашка»", "favorite": true, "time_zone_offset": 180.0, "site2": {"site": "romashka.example"}}]}"#,
        #"{"counter": {"id": 1001, "name": "Ромашка", "site": "romashka.example", "status": "Active", "permission": "own", "favorite": "1", "time_zone_name": "Europe/Moscow", "time_zone_offset": 180}}"#,
        #"{"query": {"ids": [100500], "dimensions": ["ym:s:date"], "metrics": ["ym:s:visits", "ym:s:bounceRate"], "date1": "2020-10-01", "date2": "2020-10-05", "limit": 100, "offset": 1}, "data": [{"dimensions": [{"name": "2020-10-01"}], "metrics": [14234.0, 17.7786]}, {"dimensions": [{"name": "2020-10-02", "id": 2}], "metrics": [12508, null]}], "total_rows": 5, "total_rows_rounded": false, "sampled": false, "sample_share": 1.0, "sample_size": 68280, "sample_space": 68280, "data_lag": 4242, "totals": [68274.0, "17.5"], "min": [12365.0, 1], "max": [14588.0, 30]}"#,
        #"{"query": {"metrics": ["ym:s:visits"], "dimensions": ["ym:s:trafficSource"]}, "data": [{"dimensions": [{"name": "Search engine traffic", "id": "organic", "icon_id": "2"}], "metrics": [41]}, {"dimensions": [{"name": null, "id": null}], "metrics": [0.0]}], "total_rows": 2, "sampled": 1, "sample_share": 0.1, "totals": [41]}"#,
        #"{"data": [{"dimensions": [], "metrics": [[1, 2, 3], [4.5, null, 6]]}], "totals": [[1, 2, 3], [4.5, null, 6]], "time_intervals": [["2020-10-01", "2020-10-04"], ["2020-10-05", "2020-10-11"], ["2020-10-12", "2020-10-12"]], "sampled": false}"#,
        #"{"errors": [{"error_type": "quota_requests_by_ip", "message": "Quota exceeded: too many requests"}], "code": 429, "message": "Quota exceeded"}"#,
        #"{"errors": [{"error_type": "invalid_token", "message": "Invalid oauth_token"}], "code": 403, "message": "Invalid oauth_token"}"#,
        #"{"errors": [{"error_type": "invalid_parameter", "message": "Wrong parameter: 'metrics'", "location": "metrics"}], "code": 400}"#,
        #"{"errors": [{"error_type": "quota_requests_by_uid", "message": "daily"}], "code": 429}"#,
        #"{}"#
    ]

    /// Text dropped into answers: the numbers and strings that break naive decoders.
    static let tokens: [String] = [
        "null", "true", "false", "0", "-0", "1", "41.0", "-1", "1e308", "-1e308", "1e309", "4.9e-324",
        "123456789012345678901234567890", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "9e15", "1.5", #""NaN""#, #""Infinity""#, #""-Infinity""#, #""41""#, #""1e400""#, #""""#, #""\n""#,
        #""a\nb""#, #""\u001b[31m""#, #""\ud800""#, #""\u0000""#, "[]", "{}", "[[]]", #"{"name": 1}"#,
        #"{"id": null}"#, "[null]", #"["2020-10-01", "2020-10-01"]"#, #""2020-02-30""#
    ]

    static let structuralBytes: [UInt8] = Array(#""\{}[],:0-.eE"#.utf8) + [0xFF, 0xFE, 0xC3, 0x28, 0x00, 0x0A, 0x20]

    // MARK: - Mutation

    static func mutate(_ input: [UInt8], random: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            case 1 where !bytes.isEmpty:
                bytes[position] = structuralBytes.randomElement(using: &random)!
            case 2 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
                bytes.removeSubrange(position..<end)
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...32, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 4, 5:
                bytes.insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: position)
            case 6:
                // Replace a whole number literal with a token: exercises every typed field.
                if let range = numberLiteral(in: bytes, from: position) {
                    bytes.replaceSubrange(range, with: Array(tokens.randomElement(using: &random)!.utf8))
                }
            case 7 where !bytes.isEmpty:
                bytes.removeSubrange(position...)
            case 8:
                let depth = Int.random(in: 1...700, using: &random)
                bytes.insert(contentsOf: [UInt8](repeating: UInt8(ascii: "["), count: depth), at: position)
                if Bool.random(using: &random) {
                    bytes.insert(
                        contentsOf: [UInt8](repeating: UInt8(ascii: "]"), count: depth),
                        at: min(bytes.count, position + depth + 1))
                }
            default:
                // Splice in a piece of another seed.
                let other = Array(seeds.randomElement(using: &random)!.utf8)
                let start = Int.random(in: 0..<other.count, using: &random)
                let end = min(other.count, start + Int.random(in: 1...64, using: &random))
                let cut = min(bytes.count, position + Int.random(in: 0...64, using: &random))
                bytes.replaceSubrange(position..<cut, with: other[start..<end])
            }
        }
        return bytes
    }

    /// The first run of number characters at or after `start`.
    static func numberLiteral(in bytes: [UInt8], from start: Int) -> Range<Int>? {
        func isNumberByte(_ byte: UInt8) -> Bool {
            (48...57).contains(byte) || byte == 45 || byte == 46 || byte == 101 || byte == 69 || byte == 43
        }
        guard let first = bytes[start...].firstIndex(where: { (48...57).contains($0) }) else { return nil }
        var lower = first
        while lower > 0, isNumberByte(bytes[lower - 1]) { lower -= 1 }
        var upper = first
        while upper < bytes.count, isNumberByte(bytes[upper]) { upper += 1 }
        return lower..<upper
    }

    // MARK: - Properties

    /// What every decodable answer must satisfy: no non-finite number gets through.
    static func checkDecoded(_ body: Data) -> (decoded: Int, refused: Int) {
        var decoded = 0
        var refused = 0
        func attempt<T: Decodable>(_ type: T.Type, _ check: (T) -> Void) {
            do {
                check(try JSONDecoder().decode(T.self, from: MetrikaClient.repairingInvalidUTF8(body)))
                decoded += 1
            } catch {
                refused += 1
                let text = describeDecodingFailure(error)
                #expect(
                    !text.contains("\n") && !text.contains("\r") && text.count <= 301, "not one short line: \(text)")
            }
        }
        attempt(StatDataPage.self) { page in
            let numbers =
                page.rows.flatMap(\.metrics).compactMap { $0 } + page.totals.compactMap { $0 }
                + [page.sampleShare, page.sampleSize, page.sampleSpace, page.dataLag].compactMap { $0 }
            #expect(numbers.allSatisfy { $0.isFinite }, "a non-finite number was decoded")
            #expect(page.rowCount == page.rows.count)
        }
        attempt(StatByTime.self) { answer in
            #expect(
                answer.totals.joined().compactMap { $0 }.allSatisfy { $0.isFinite }, "a non-finite total was decoded")
        }
        attempt(CounterListResponse.self) { list in
            #expect(list.counters.count <= body.count, "more counters than bytes")
        }
        attempt(CounterResponse.self) { _ in }
        attempt(WireErrorBody.self) { _ in }
        return (decoded, refused)
    }

    @Test func wireTypesDecodeOrRefuseMutatedAnswers() {
        var random = SeededRandom(seed: 0x6D65_7472_696B_6131)
        var decoded = 0
        var refused = 0
        for _ in 0..<Self.iterations {
            let seed = Array(Self.seeds.randomElement(using: &random)!.utf8)
            let outcome = Self.checkDecoded(Data(Self.mutate(seed, random: &random)))
            decoded += outcome.decoded
            refused += outcome.refused
        }
        // The fuzzer must reach both sides: answers that still decode and answers that are refused.
        #expect(decoded > Self.iterations / 4, "only \(decoded) decodes")
        #expect(refused > Self.iterations, "only \(refused) refusals")
    }

    @Test func theDocumentedSeedsDecodeUnmutated() {
        // Without mutation the seeds are good answers: the fuzzer starts from the real shapes.
        let page = try? JSONDecoder().decode(StatDataPage.self, from: Data(Self.seeds[2].utf8))
        #expect(page?.rows.map(\.metrics) == [[14234, 17.7786], [12508, nil]])
        #expect(page?.totals == [68274, 17.5])
        let list = try? JSONDecoder().decode(CounterListResponse.self, from: Data(Self.seeds[0].utf8))
        #expect(list?.counters.map(\.counter.id) == [880000, 1001])
        #expect(list?.counters.map(\.counter.isFavorite) == [false, true])
    }

    /// The client end to end, with a transport that answers random statuses and mutated bodies: every
    /// call returns a value or throws an `APIError` whose message is one line and whose exit code is
    /// a documented one.
    @Test func clientTurnsAnyAnswerIntoAValueOrATypedError() async throws {
        let statuses = [200, 200, 200, 200, 400, 401, 403, 404, 420, 429, 500, 502, 503, 504, 302, 418]
        let documented: Set<Int32> = [64, 65, 69, 75, 77]
        var random = SeededRandom(seed: 0x0046_415A_5A45_5221)
        var values = 0
        var errors: [Int32: Int] = [:]
        for iteration in 0..<Self.iterations {
            let body = Data(Self.mutate(Array(Self.seeds.randomElement(using: &random)!.utf8), random: &random))
            let status = statuses.randomElement(using: &random)!
            let retryAfter =
                Bool.random(using: &random) ? ["Retry-After": Self.tokens.randomElement(using: &random)!] : [:]
            // The same answer to every request (a proxy that ignores paging), byte for byte.
            let transport = RepeatingTransport(HTTPResponse(status: status, headers: retryAfter, body: body))
            let client = MetrikaClient(
                baseURL: URL(string: "https://api.example")!, token: "fuzz-token", transport: transport,
                retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: 0.5, maxDelay: 8, maxTotalWait: 30),
                sleep: { _ in }, random: { 0.5 }, now: { Date(timeIntervalSince1970: 1_790_000_000) })
            let query = StatQuery(
                ids: [1001], metrics: ["ym:s:visits", "ym:s:bounceRate"], dimensions: ["ym:s:date"],
                date1: "2020-10-01", date2: "2020-10-05")
            do {
                switch iteration % 5 {
                case 0: _ = try await client.fetchCounters()
                case 1: _ = try await client.fetchCounter(id: 1001)
                case 2: _ = try await client.fetchData(query, offset: 1, limit: 100)
                case 3: _ = try await client.fetchByTime(query, group: .week)
                default: _ = try await client.checkToken()
                }
                values += 1
            } catch let error as APIError {
                errors[error.exitCode, default: 0] += 1
                #expect(documented.contains(error.exitCode))
                #expect(!error.message.contains("\n") && !error.message.contains("\r"), "\(error.message)")
                #expect(!error.message.contains("fuzz-token"))
            } catch {
                Issue.record("iteration \(iteration): not an APIError: \(error)")
            }
            // A paging walk over one repeated page ends after the page brings nothing new.
            #expect(transport.count <= 4, "iteration \(iteration): \(transport.count) requests")
        }
        #expect(values > 250, "only \(values) successes")
        #expect(
            errors[65, default: 0] > 1000 && errors[69, default: 0] > 100 && errors[75, default: 0] > 100, "\(errors)")
    }

    @Test func oneLineKeepsTextButNotItsBreaks() {
        #expect(
            MetrikaClient.oneLine("Wrong parameter:\n'metrics'\r\u{1B}[31m\u{202E}")
                == "Wrong parameter:↵'metrics'↵\\x1b[31m")
        #expect(MetrikaClient.oneLine("Ромашка «1»") == "Ромашка «1»")
        #expect(MetrikaClient.oneLine(String(repeating: "x", count: 500)) == String(repeating: "x", count: 300) + "…")
        #expect(MetrikaClient.repairingInvalidUTF8(Data([0x22, 0xFF, 0x41, 0x22])) == Data("\"\u{FFFD}A\"".utf8))
    }
}

/// Answers every request with the same response and counts them.
final class RepeatingTransport: HTTPTransport, @unchecked Sendable {
    private let response: HTTPResponse
    private let lock = NSLock()
    private var sent = 0

    init(_ response: HTTPResponse) { self.response = response }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        countOne()
        return response
    }

    private func countOne() {
        lock.lock()
        sent += 1
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }
}
