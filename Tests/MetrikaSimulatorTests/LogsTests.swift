import Foundation
import MetrikaSimulator
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Logs API")
struct LogsTests {
    static let counter = "/management/v1/counter/1001"
    static let fields = "ym:s:visitID,ym:s:date,ym:s:startURL,ym:s:title,ym:s:goalsID,ym:s:goalsOrder,ym:s:regionCity"
    static let range = "date1=2026-06-01&date2=2026-06-02&source=visits&fields=\(fields)"

    func call(_ sim: SimulatorHarness, _ method: String, _ path: String) async throws -> Reply {
        var request = URLRequest(url: sim.url(path))
        request.httpMethod = method
        request.setValue("OAuth demo-token", forHTTPHeaderField: "Authorization")
        return try await sim.send(request)
    }

    func status(_ reply: Reply) throws -> String? {
        (try reply.json()["log_request"] as? [String: Any])?["status"] as? String
    }

    @Test("evaluate, create, created → processed after polls, chunked TSV parts with the API's escaping, clean")
    func lifecycle() async throws {
        let sim = try SimulatorHarness()
        let evaluation = try await call(sim, "GET", "\(Self.counter)/logrequests/evaluate?\(Self.range)")
        #expect((try evaluation.json()["log_request_evaluation"] as? [String: Any])?["possible"] as? Bool == true)
        let created = try await call(sim, "POST", "\(Self.counter)/logrequests?\(Self.range)")
        let id = try #require((try created.json()["log_request"] as? [String: Any])?["request_id"] as? Int)
        #expect(try status(created) == "created")
        let early = try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)/part/0/download")
        #expect(early.status == 400)
        #expect(try status(try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)")) == "created")
        let info = try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)")
        #expect(try status(info) == "processed")
        let parts = try #require((try info.json()["log_request"] as? [String: Any])?["parts"] as? [[String: Any]])
        var rows = 0
        var text = ""
        for part in parts {
            let number = try #require(part["part_number"] as? Int)
            let body = try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)/part/\(number)/download")
            #expect(body.status == 200)
            #expect(body.header("Transfer-Encoding") == "chunked")
            let lines = body.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.first == Substring(Self.fields.replacingOccurrences(of: ",", with: "\t")))
            for line in lines.dropFirst() {
                #expect(line.split(separator: "\t", omittingEmptySubsequences: false).count == 7)
            }
            rows += lines.count - 1
            text += body.text
        }
        // Two days of counter 1001 from the traffic model: thousands of rows.
        #expect(rows > 1_000)
        #expect(text.contains(#"поиск\ttab\\slash\nline"#))
        #expect(text.contains("['товар \\'A\\'','b']"))
        #expect(text.contains("Москва"))
        #expect(text.range(of: #"\t\[\d+(,\d+)*\]\t"#, options: .regularExpression) != nil)
        let cleaned = try await call(sim, "POST", "\(Self.counter)/logrequest/\(id)/clean")
        #expect(try status(cleaned) == "cleaned_by_user")
        let after = try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)/part/0/download")
        #expect(after.status == 400)
    }

    /// The shapes integrations reported (docs/clickhouse.md names the sources), one switch each.
    @Test("--logs-quirks: escaped and CSV-quoted arrays, a sorted header, CRLF, BOM, no last line feed, a broken row")
    func quirks() async throws {
        let sim = try SimulatorHarness(logsQuirks: Set(LogsQuirk.allCases))
        let range = "date1=2026-06-01&date2=2026-06-01&source=visits&fields=ym:s:visitID,ym:s:date,ym:s:goalsOrder"
        let created = try await call(sim, "POST", "\(Self.counter)/logrequests?\(range)")
        let id = try #require((try created.json()["log_request"] as? [String: Any])?["request_id"] as? Int)
        _ = try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)")
        _ = try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)")
        let body = try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)/part/0/download")
        let bytes = Array(body.text.utf8)
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF] + Array("ym:s:date\tym:s:goalsOrder\tym:s:visitID\r\n".utf8)))
        #expect(bytes.last != 10)
        #expect(body.text.contains("\"[\\'Телевизор 55\"\"\\',\\'товар \\\\\\'A\\\\\\'\\']\""))
        #expect(body.text.contains("\t[\\'товар \\\\\\'A\\\\\\'\\',\\'b\\']\t"))
        let rows = body.text.components(separatedBy: "\r\n")
        #expect(rows[2].split(separator: "\t", omittingEmptySubsequences: false).count == 4)
        #expect(rows[3].split(separator: "\t", omittingEmptySubsequences: false).count == 3)
    }

    @Test("processing_failed and a part cut mid-way are injectable faults")
    func faults() async throws {
        let sim = try SimulatorHarness()
        let created = try await call(sim, "POST", "\(Self.counter)/logrequests?\(Self.range)")
        let id = try #require((try created.json()["log_request"] as? [String: Any])?["request_id"] as? Int)
        try await sim.inject(#"{"kind":"logs_processing_failed"}"#)
        #expect(try status(try await call(sim, "GET", "\(Self.counter)/logrequest/\(id)")) == "processing_failed")

        let second = try await call(sim, "POST", "\(Self.counter)/logrequests?\(Self.range)")
        let secondID = try #require((try second.json()["log_request"] as? [String: Any])?["request_id"] as? Int)
        _ = try await call(sim, "GET", "\(Self.counter)/logrequest/\(secondID)")
        _ = try await call(sim, "GET", "\(Self.counter)/logrequest/\(secondID)")
        try await sim.inject(#"{"kind":"logs_cut_part"}"#)
        await #expect(throws: (any Error).self) {
            _ = try await call(sim, "GET", "\(Self.counter)/logrequest/\(secondID)/part/0/download")
        }
        let whole = try await call(sim, "GET", "\(Self.counter)/logrequest/\(secondID)/part/0/download")
        #expect(whole.status == 200)
    }

    @Test("a log request of a day not yet over, or too long for evaluate's quantity, is refused")
    func limits() async throws {
        let sim = try SimulatorHarness()
        let today = try await call(
            sim, "POST", "\(Self.counter)/logrequests?date1=2026-06-14&date2=2026-06-15&source=visits&fields=ym:s:date")
        #expect(today.status == 400)
        let wrongPrefix = try await call(
            sim, "GET",
            "\(Self.counter)/logrequests/evaluate?date1=2026-06-01&date2=2026-06-02&source=hits&fields=ym:s:date")
        #expect(wrongPrefix.status == 400)
    }
}
