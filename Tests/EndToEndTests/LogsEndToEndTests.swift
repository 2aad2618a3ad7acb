import Foundation
import MetrikaAPI
import Testing

/// `metrika logs --output`: the Logs API lifecycle against the simulator, the file written whole or
/// not at all, the request always cleaned, a cut part resumed without ordering the log again.
@Suite("Logs end to end", .serialized, .blockingLanes)
struct LogsEndToEndTests {
    static let now = "2026-06-15T12:00:00Z"
    static let fields = "visitID,date,startURL,title,goalsID,goalsOrder,regionCity,pageViews"

    func environment(_ api: FakeAPI, _ home: TemporaryDirectory) -> [String: String] {
        metrikaEnvironment(
            api: api, home: home.path, retryScale: 0.05,
            extra: ["METRIKA_NOW": Self.now, "METRIKA_LOGS_POLL": "0", "METRIKA_DB": home.path + "/h.sqlite"])
    }

    func logRequests(_ api: FakeAPI) throws -> [[String: Any]] {
        let data = try api.apiGET("/management/v1/counter/1001/logrequests")
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["requests"] as? [[String: Any]] ?? []
    }

    func creates(_ api: FakeAPI) throws -> Int {
        try api.requests().filter {
            ($0["method"] as? String) == "POST" && ($0["path"] as? String ?? "").hasSuffix("/logrequests")
        }.count
    }

    @Test func exportsEveryPartToAFileWithOneHeaderAndCleansTheRequest() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "1500"])
        let home = try TemporaryDirectory()
        let file = home.path + "/visits.tsv"
        let result = try metrika(
            [
                "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-02", "--fields", Self.fields,
                "--output", file
            ],
            environment: environment(api, home))
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // counterID is always added (the warehouse key needs it), in front.
        #expect(
            lines.first
                == "ym:s:counterID\tym:s:visitID\tym:s:date\tym:s:startURL\tym:s:title\tym:s:goalsID\tym:s:goalsOrder\tym:s:regionCity\tym:s:pageViews"
        )
        #expect(lines.filter { $0.hasPrefix("ym:s:") }.count == 1)
        #expect(lines.count > 3_000)
        #expect(text.contains(#"поиск\ttab\\slash\nline"#))
        #expect(text.contains("['товар \\'A\\'','b']"))
        let downloads = try api.requests().filter { ($0["path"] as? String ?? "").hasSuffix("/download") }.count
        #expect(downloads >= 3)
        #expect(try logRequests(api).map { $0["status"] as? String } == ["cleaned_by_user"])
        #expect(result.stderr.contains("\(downloads) parts"))
    }

    @Test func aPartCutOnceIsFetchedAgainAndItsRowsAreWrittenOnce() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "1500"])
        let home = try TemporaryDirectory()
        let file = home.path + "/visits.tsv"
        try api.inject(["kind": "logs_cut_part", "path_suffix": "/part/1/download"])
        let result = try metrika(
            [
                "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-02", "--fields", Self.fields,
                "--output", file
            ],
            environment: environment(api, home))
        #expect(result.status == 0, "\(result.stderr)")
        let downloads = try api.requests().compactMap { $0["path"] as? String }.filter { $0.hasSuffix("/download") }
        #expect(downloads.filter { $0.hasSuffix("/part/1/download") }.count == 2)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("ym:s:") }.count == 1)
        // Every visit once: the rows the cut attempt delivered were taken back.
        let ids = lines.dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false)[1] }
        #expect(ids.count > 3_000)
        #expect(Set(ids).count == ids.count)
        #expect(try logRequests(api).map { $0["status"] as? String } == ["cleaned_by_user"])
    }

    @Test func aTokenThatExpiresBetweenTwoPartsIsRenewedAndTheNextPartCarriesTheNewOne() throws {
        let api = try FakeAPI(arguments: [
            "--now", Self.now, "--logs-part-rows", "1500", "--device-pending", "0", "--device-interval", "1"
        ])
        let home = try TemporaryDirectory()
        let tokenPath = home.path + "/config/metrika/token.json"
        let app = ["METRIKA_CLIENT_ID": "demo-client", "METRIKA_CLIENT_SECRET": "demo-secret"]
        var environment = environment(api, home).merging(app) { _, new in new }
        environment["METRIKA_TOKEN"] = nil
        // A token the simulator issued (with a refresh token), valid for a year.
        let login = try metrika(["login"], environment: environment, timeout: 60)
        #expect(login.status == 0, "\(login.stderr)")
        let original = try TokenFile(path: tokenPath).read().accessToken
        // It runs out after the first part.
        try api.reset()
        try api.inject(["kind": "expire_token", "path_suffix": "/part/1/download"])
        let file = home.path + "/visits.tsv"

        let result = try metrika(
            [
                "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-02", "--fields", Self.fields,
                "--output", file
            ],
            environment: environment)

        #expect(result.status == 0, "\(result.stderr)")
        let log = try api.requests().map { ($0["path"] as? String ?? "", $0["status"] as? Int ?? 0) }
        // Part 1 was refused with the expired token, the token renewed once, and part 1 (and every
        // later request) sent again with the new one: the old token no longer works anywhere.
        #expect(log.filter { $0.0.hasSuffix("/part/1/download") }.map(\.1) == [403, 200])
        #expect(log.filter { $0.0 == "/token" }.map(\.1) == [200])
        let afterRenewal = log.drop { $0.0 != "/token" }.dropFirst()
        #expect(afterRenewal.contains { $0.0.hasSuffix("/part/2/download") })
        #expect(afterRenewal.allSatisfy { $0.1 == 200 })
        let renewed = try TokenFile(path: tokenPath).read().accessToken
        #expect(renewed != original)
        #expect(!result.stderr.contains(renewed) && !result.stderr.contains(original))
        #expect(
            try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("ym:s:") }
                .count == 1)
    }

    @Test func aPartCutOnEveryAttemptLeavesNoFileKeepsTheRequestAndTheRerunResumesIt() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-part-rows", "1500"])
        let home = try TemporaryDirectory()
        let file = home.path + "/visits.tsv"
        let arguments = [
            "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-02", "--fields", Self.fields,
            "--output", file
        ]
        // As many cuts as the retry policy has attempts.
        try api.inject(["kind": "logs_cut_part", "count": 5])
        let failed = try metrika(arguments, environment: environment(api, home))
        #expect(failed.status == 69, "\(failed.stderr)")
        // One numbering: the error counts parts as the progress line does (the API's part 0 is part 1).
        #expect(failed.stderr.contains("log request 7000001, part 1 of "), "\(failed.stderr)")
        #expect(!failed.stderr.contains("part 0"))
        #expect(failed.stderr.contains("5 attempts"))
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.contains("visits.tsv") }.isEmpty)
        #expect(try logRequests(api).map { $0["status"] as? String } == ["processed"])

        let again = try metrika(arguments, environment: environment(api, home))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("resuming log request"))
        #expect(try creates(api) == 1)
        #expect(try logRequests(api).map { $0["status"] as? String } == ["cleaned_by_user"])
        #expect(try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").count > 3_000)
    }

    @Test func processingFailedIsOneErrorLineAndNothingIsWritten() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        try api.inject(["kind": "logs_processing_failed"])
        let file = home.path + "/v.tsv"
        let result = try metrika(
            ["logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--output", file],
            environment: environment(api, home))
        #expect(result.status == 69)
        #expect(result.stderr.contains("processing_failed"))
        #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aRangeLongerThanEvaluateAllowsIsSplitAndEveryRequestCleaned() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-max-days", "2", "--logs-rows-per-day", "10"])
        let home = try TemporaryDirectory()
        let result = try metrika(
            [
                "logs", "--counter", "1001", "--source", "hits", "--from", "2026-06-01", "--to", "2026-06-05",
                "--output", "-"
            ],
            environment: environment(api, home))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try creates(api) == 3)
        #expect(result.stdoutLines.count == 1 + 5 * 10)
        #expect(result.stdoutLines.first?.hasPrefix("ym:pv:watchID\tym:pv:counterID\tym:pv:date\t") == true)
        #expect(try logRequests(api).allSatisfy { $0["status"] as? String == "cleaned_by_user" })
        #expect(Set(result.stdoutLines.dropFirst().map { $0.split(separator: "\t")[2] }).count == 5)
    }

    @Test func listAndCleanAllFreeLeftovers() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now, "--logs-ready-polls", "1"])
        let home = try TemporaryDirectory()
        try api.inject(["kind": "logs_cut_part", "count": 5])
        _ = try metrika(
            [
                "logs", "--counter", "1001", "--from", "2026-06-01", "--to", "2026-06-01", "--output",
                home.path + "/a.tsv"
            ], environment: environment(api, home))
        let listed = try metrika(["logs", "--counter", "1001", "--list"], environment: environment(api, home))
        #expect(listed.status == 0)
        #expect(listed.stdoutLines.count == 2)
        #expect(listed.stdout.contains("\tprocessed\t"))
        let cleaned = try metrika(["logs", "--counter", "1001", "--clean-all"], environment: environment(api, home))
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(cleaned.stderr.contains("1 log request cleaned"))
        #expect(try logRequests(api).allSatisfy { $0["status"] as? String == "cleaned_by_user" })
    }

    @Test func aDayNotYetOverIsAUsageError() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["logs", "--counter", "1001", "--from", "2026-06-14", "--to", "today", "--output", "-"],
            environment: environment(api, home))
        #expect(result.status == 64)
        #expect(result.stderr.contains("before today"))
        #expect(try creates(api) == 0)
    }
}
