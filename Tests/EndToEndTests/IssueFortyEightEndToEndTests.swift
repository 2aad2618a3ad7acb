import Foundation
import MetrikaTestSupport
import Testing

/// Issue 48's "Elsewhere" items through the built binary: each said truly, with the exit status a
/// script relies on.
@Suite("issue 48: what the command line says", .serialized, .blockingLanes)
struct IssueFortyEightEndToEndTests {
    /// A Monday, 16:30 in Moscow.
    static let now = "2026-11-30T13:30:00Z"

    func run(_ api: FakeAPI?, _ home: TemporaryDirectory, _ arguments: [String], extra: [String: String] = [:]) throws
        -> ProcessResult
    {
        try metrika(
            arguments,
            environment: metrikaEnvironment(
                api: api, home: home.path,
                extra: ["METRIKA_NOW": Self.now, "METRIKA_DB": home.path + "/history.sqlite"].merging(extra) { $1 }))
    }

    /// A young counter (1005, created 2026-06-12): the previous period predates it, and the report says so
    /// instead of a column of unknowns or every row `new` with nothing said.
    @Test func aComparisonBeforeTheCounterExistedIsSaid() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let series = try run(
            api, home, ["report", "--counter", "1005", "--from", "2026-06-12", "--to", "2026-06-14", "--compare"])
        #expect(series.status == 0, "\(series.stderr)")
        #expect(
            series.stderr.contains(
                "Note: the previous period 2026-06-09 … 2026-06-11 predates counter 1005 (created 2026-06-12)"),
            "\(series.stderr)")
        let rows = try run(
            api, home,
            [
                "report", "--counter", "1005", "--from", "2026-06-12", "--to", "2026-06-30", "--compare",
                "--dimensions", "trafficSource", "--metrics", "visits"
            ])
        #expect(rows.status == 0, "\(rows.stderr)")
        #expect(rows.stderr.contains("every row is new and its change unknown"), "\(rows.stderr)")
        // A counter that existed all along says nothing of it.
        let old = try run(api, home, ["report", "--counter", "1001", "--period", "lastWeek", "--compare"])
        #expect(!old.stderr.contains("predates"), "\(old.stderr)")
    }

    /// `chart --output ''` is a usage error as report's is (64, not 73); a name ending neither .svg
    /// nor .png is refused unless --format says which.
    @Test func chartOutputNamesAreJudgedAsReportJudgesThem() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let empty = try run(api, home, ["chart", "--counter", "1001", "--output", ""])
        #expect(empty.status == 64, "\(empty.stderr)")
        #expect(empty.stderr.hasPrefix("Error: --output needs a file name (or - for standard output)"))
        let text = home.path + "/c.txt"
        let txt = try run(api, home, ["chart", "--counter", "1001", "--output", text])
        #expect(txt.status == 64, "\(txt.stderr)")
        #expect(
            txt.stderr.hasPrefix("Error: --output c.txt ends neither .svg nor .png: name it c.svg or c.png"),
            "\(txt.stderr)")
        #expect(!FileManager.default.fileExists(atPath: text))
        let chosen = try run(api, home, ["chart", "--counter", "1001", "--output", text, "--format", "svg"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect((try? String(contentsOfFile: text, encoding: .utf8))?.contains("<svg") == true)
    }

    /// The Telegram settings' words: a bad Bot API address suggests the Bot API's, `--allow ''` says
    /// it is empty, and the hourly check of one counter says "1 counter".
    @Test func telegramAndHourlyWordsAreTrue() throws {
        let home = try TemporaryDirectory()
        let url = try run(
            nil, home, ["bot", "--allow", "1", "--once"],
            extra: [
                "METRIKA_TELEGRAM_API_URL": "notaurl",
                "METRIKA_TELEGRAM_TOKEN": "123456789:AAH-secretPart_0123456789abcdefghijk"
            ])
        #expect(url.status == 78, "\(url.stderr)")
        #expect(
            url.stderr.contains("Set it like https://api.telegram.org") && !url.stderr.contains("api-metrika"),
            "\(url.stderr)")
        let allow = try run(nil, home, ["bot", "--allow", ""])
        #expect(allow.status == 64, "\(allow.stderr)")
        #expect(allow.stderr.hasPrefix("Error: --allow is empty: give the chat numbers the bot answers"))
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let hourly = try run(api, home, ["alert", "--today", "--counter", "1001", "-v", "--dry-run"])
        #expect(hourly.status == 0, "\(hourly.stderr)")
        #expect(hourly.stderr.contains("Hourly check: 1 counter, "), "\(hourly.stderr)")
    }

    /// Issue 48 target 6 (the part built): a chart marks the days the owner annotated in Metrika
    /// (`chart_annotations`: 1005's "Новый шаблон сайта" on 2026-11-29) with a dashed line and the
    /// title; a period without one, or a counter without any, has no mark.
    @Test func aChartMarksAnAnnotatedDayWithItsTitle() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let marked = try run(
            api, home, ["chart", "--counter", "1005", "--from", "2026-11-10", "--to", "2026-11-30", "--output", "-"])
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(marked.stdout.contains(">Новый шаблон сайта</text>"), "\(marked.stdout.suffix(400))")
        #expect(marked.stdout.contains("stroke=\"#9A6700\""))
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1005/chart_annotations") == 1)
        let before = try run(
            api, home, ["chart", "--counter", "1005", "--from", "2026-11-10", "--to", "2026-11-20", "--output", "-"])
        #expect(before.status == 0 && !before.stdout.contains("Новый шаблон") && !before.stdout.contains("#9A6700"))
        // Kept in the history: read again within the hour costs nothing, and offline shows the kept ones.
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1005/chart_annotations") == 1)
        let offline = try run(
            api, home,
            ["chart", "--counter", "1005", "--from", "2026-11-10", "--to", "2026-11-30", "--offline", "--output", "-"])
        #expect(offline.status == 0 && offline.stdout.contains(">Новый шаблон сайта</text>"), "\(offline.stderr)")
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1005/chart_annotations") == 1)
        let other = try run(api, home, ["chart", "--counter", "1001", "--period", "last30days", "--output", "-"])
        #expect(other.status == 0 && !other.stdout.contains("#9A6700"), "\(other.stderr)")
    }

    /// Issue 48 target 6, the mail's charts: `metrika mail`'s attached SVG and inline charts mark 1005's
    /// annotated day with its title (one Management request); 1001, without annotations, has no mark.
    @Test func theMailsChartsMarkAnAnnotatedDay() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        func svgParts(_ counter: String) throws -> [String] {
            let mail = try run(
                api, home,
                [
                    "mail", "--counter", counter, "--last", "7d", "--to", "a@example.com", "--sender",
                    "m@example.com", "--output", "-"
                ], extra: ["METRIKA_RSVG_CONVERT": "/nonexistent"])
            #expect(mail.status == 0, "\(mail.stderr)")
            // Each image/svg+xml part's base64 body, decoded.
            var parts: [String] = []
            var body: String?
            var inSVG = false
            for line in mail.stdout.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
                let line = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if line.hasPrefix("Content-Type: image/svg+xml") {
                    inSVG = true
                } else if inSVG, line.isEmpty, body == nil {
                    body = ""
                } else if let text = body, line.isEmpty || line.hasPrefix("--") {
                    parts.append(Data(base64Encoded: text).flatMap { String(data: $0, encoding: .utf8) } ?? "")
                    (body, inSVG) = (nil, false)
                } else if let text = body {
                    body = text + line
                }
            }
            return parts
        }
        let marked = try svgParts("1005")
        #expect(marked.count >= 2, "attached and inline SVGs")
        #expect(marked.allSatisfy { $0.contains(">Новый шаблон сайта</text>") && $0.contains("#9A6700") })
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1005/chart_annotations") == 1)
        let plain = try svgParts("1001")
        #expect(!plain.isEmpty && plain.allSatisfy { $0.contains("<svg") && !$0.contains("#9A6700") })
    }

    /// Issue 48 target 6, writing: `metrika annotate` needs the metrika:write scope. A token file without
    /// it is refused in one line naming `metrika login --scope write`, exit 77, before any request; signed in
    /// with `--scope write` the annotation is POSTed once and a later chart shows it.
    @Test func annotateNeedsTheWriteScopeAndWritesOne() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let arguments = [
            "annotate", "--counter", "1001", "--date", "2026-11-25", "--time", "10:00", "--title", "Распродажа",
            "--group", "b"
        ]
        func environment() -> [String: String] {
            metrikaEnvironment(api: api, home: home.path, token: nil, extra: ["METRIKA_NOW": Self.now])
        }
        // A read-only sign-in (what `metrika login` records without --scope).
        let readOnly = try metrika(
            ["login", "--token-stdin"], environment: environment(), stdin: "demo-token\n")
        #expect(readOnly.status == 0, "\(readOnly.stderr)")
        let refused = try metrika(arguments, environment: environment())
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("metrika:write") && refused.stderr.contains("`metrika login --scope write`"))
        #expect(try api.requestCount(pathPrefix: "/management/v1/counter/1001/chart_annotations") == 0)
        // Signed in again asking for the write scope: the token file records it.
        let writer = try metrika(
            ["login", "--token-stdin", "--scope", "write"], environment: environment(), stdin: "demo-token\n")
        #expect(writer.status == 0, "\(writer.stderr)")
        let file = try String(contentsOfFile: home.path + "/config/metrika/token.json", encoding: .utf8)
        #expect(file.contains("\"scope\": \"metrika:read metrika:write\""), "\(file)")
        let written = try metrika(arguments, environment: environment())
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout == "Annotated counter 1001 on 2026-11-25 10:00: \"Распродажа\"\n", "\(written.stdout)")
        let posts = try api.requests().filter {
            ($0["method"] as? String) == "POST"
                && ($0["path"] as? String) == "/management/v1/counter/1001/chart_annotations"
        }
        #expect(posts.count == 1)
        let chart = try metrika(
            ["chart", "--counter", "1001", "--from", "2026-11-20", "--to", "2026-11-29", "--output", "-"],
            environment: environment())
        #expect(chart.status == 0 && chart.stdout.contains(">Распродажа</text>"), "\(chart.stderr)")
        // A wrong group is a usage error, before any request.
        let bad = try metrika(Array(arguments.dropLast()) + ["F"], environment: environment())
        #expect(bad.status == 64 && bad.stderr.contains("--group must be A, B, C, D or E"), "\(bad.stderr)")
    }

    /// Issue 48 target 6, reading: an annotation on an alert's day is a line under the alert, and on the
    /// explained day a line under explain's table; annotations that cannot be read change nothing else.
    @Test func anAnnotatedDayIsSaidUnderTheAlertAndTheExplanation() throws {
        let api = try FakeAPI(fixtures: "alerts", arguments: ["--now", "2026-12-01T06:00:00Z"])
        let home = try TemporaryDirectory()
        func environment(token: String? = "demo-token") -> [String: String] {
            metrikaEnvironment(
                api: api, home: home.path, token: token,
                extra: ["METRIKA_NOW": "2026-11-30T06:00:00Z", "METRIKA_DB": home.path + "/history.sqlite"])
        }
        let alert = ["alert", "--counter", "520002", "--dry-run"]
        let plain = try metrika(alert, environment: environment())
        #expect(plain.status == 0 && plain.stdoutLines.count == 1, "\(plain.stdout)\(plain.stderr)")
        let login = try metrika(
            ["login", "--token-stdin", "--scope", "write"], environment: environment(token: nil), stdin: "demo-token\n")
        #expect(login.status == 0, "\(login.stderr)")
        let written = try metrika(
            ["annotate", "--counter", "520002", "--date", "2026-11-29", "--title", "Новый шаблон сайта"],
            environment: environment(token: nil))
        #expect(written.status == 0, "\(written.stderr)")
        let noted = try metrika(alert, environment: environment())
        #expect(noted.status == 0, "\(noted.stderr)")
        #expect(noted.stdoutLines.count == 2, "\(noted.stdout)")
        #expect(noted.stdoutLines.first == plain.stdoutLines.first)
        #expect(noted.stdoutLines.last == "  annotation on Sun 2026-11-29: \"Новый шаблон сайта\"", "\(noted.stdout)")
        let explained = try metrika(
            ["explain", "--counter", "520002", "--date", "2026-11-29"], environment: environment())
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(
            explained.stdoutLines.last == "annotation on Sun 2026-11-29: \"Новый шаблон сайта\"", "\(explained.stdout)")
        let otherDay = try metrika(
            ["explain", "--counter", "520002", "--date", "2026-11-28"], environment: environment())
        #expect(otherDay.status == 0 && !otherDay.stdout.contains("annotation"), "\(otherDay.stdout)")
        // explain's CSV has a row per annotation after the tables, its JSON an `annotations` member.
        let csv = try metrika(
            ["explain", "--counter", "520002", "--date", "2026-11-29", "--csv"], environment: environment())
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdoutLines.last == "annotation,Новый шаблон сайта,2026-11-29,,,,,,", "\(csv.stdout)")
        let json = try metrika(
            ["explain", "--counter", "520002", "--date", "2026-11-29", "--json"], environment: environment())
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let notes = try #require(document["annotations"] as? [[String: Any]], "\(json.stdout)")
        #expect(document["version"] as? Int == 1 && notes.count == 1)
        #expect(notes.first?["counter_id"] as? Int == 520002 && notes.first?["date"] as? String == "2026-11-29")
        #expect(notes.first?["title"] as? String == "Новый шаблон сайта")
        // Unreadable annotations: the ones kept in the history still show.
        try api.inject(["kind": "malformed_json", "count": 2, "path_prefix": "/management/v1/counter/520002/chart"])
        let later = ["METRIKA_NOW": "2026-11-30T08:00:00Z"]
        var kept = environment()
        kept.merge(later) { $1 }
        let keptAlert = try metrika(alert, environment: kept)
        #expect(keptAlert.status == 0 && keptAlert.stdoutLines.last == noted.stdoutLines.last, "\(keptAlert.stdout)")
        // None kept (another history) and unreadable: the alert and the explanation as before, exit 0.
        try api.inject(["kind": "malformed_json", "count": 2, "path_prefix": "/management/v1/counter/520002/chart"])
        var fresh = environment()
        fresh["METRIKA_DB"] = home.path + "/other.sqlite"
        let unread = try metrika(alert, environment: fresh)
        #expect(unread.status == 0 && unread.stdoutLines == plain.stdoutLines, "\(unread.stdout)\(unread.stderr)")
        let unexplained = try metrika(
            ["explain", "--counter", "520002", "--date", "2026-11-29"], environment: fresh)
        #expect(unexplained.status == 0 && !unexplained.stdout.contains("annotation"), "\(unexplained.stderr)")
    }
}
