import Foundation
import Testing

/// `metrika report --format html` as a user runs it: the page on stdout or in a file (atomically),
/// holding the same numbers as the CSV of the same report, and every misuse refused in one line.
/// The page's layout at 390 and 1280 px is measured in Chromium (MailBrowserEndToEndTests).
@Suite(.blockingLanes) struct ReportHTMLEndToEndTests {
    static let now = "2026-11-25T09:00:00Z"

    /// The cells of every table block of a page, by row key and column title (no-break spaces removed).
    static func cells(of page: String) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for table in page.components(separatedBy: "<table").dropFirst() {
            let headers = table.matches(of: /<th scope="col"[^>]*>([^<]*)<\/th>/).map { String($0.output.1) }
            for row in table.components(separatedBy: "<th scope=\"row\"").dropFirst() {
                guard let key = row.firstMatch(of: /^[^>]*>([^<]*)<\/th>/)?.output.1 else { continue }
                let values = row.matches(of: /<td[^>]*>([^<]*)<\/td>/).map {
                    String($0.output.1).replacingOccurrences(of: "\u{00A0}", with: "")
                }
                for (header, value) in zip(headers.dropFirst(), values) {
                    result[String(key).replacingOccurrences(of: "\u{00A0}", with: " "), default: [:]][header] = value
                }
            }
        }
        return result
    }

    @Test func thePageHoldsTheSameNumbersAsTheCSV() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": Self.now])
        let page = home.path + "/week.html"
        let written = try metrika(
            ["report", "--counter", "1001", "--period", "lastWeek", "--format", "html", "--output", page],
            environment: environment)
        #expect(written.status == 0 && written.stdout.isEmpty, "\(written.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let csv = try metrika(
            ["report", "--counter", "1001", "--period", "lastWeek", "--csv", "--offline"], environment: environment)
        try #require(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(
            lines.first == ["date", "pageviews", "visits", "users", "page_depth", "avg_visit_duration", "bounce_rate"])
        let table = Self.cells(of: html)
        let weekdays = [
            "2026-11-16": "Mon 16 Nov", "2026-11-17": "Tue 17 Nov", "2026-11-18": "Wed 18 Nov",
            "2026-11-19": "Thu 19 Nov",
            "2026-11-20": "Fri 20 Nov", "2026-11-21": "Sat 21 Nov", "2026-11-22": "Sun 22 Nov"
        ]
        #expect(lines.count == 8 && table.count == 8, "seven days and the total: \(table.keys.sorted())")
        for line in lines.dropFirst() {
            let key = try #require(weekdays[line[0]])
            let row = try #require(table[key], "no row for \(line[0])")
            #expect(
                row["Pageviews"] == line[1] && row["Visits"] == line[2] && row["Users"] == line[3], "\(line) vs \(row)")
            #expect(row["Page depth"] == line[4] && row["Bounce rate"] == line[6], "\(line) vs \(row)")
            // CSV writes durations as h:mm:ss for spreadsheets; the page as the table does, mm:ss.
            #expect("0:" + (row["Time on site"] ?? "") == line[5], "\(line) vs \(row)")
        }
        // The summary's totals are the table's Total row, with their change against the week before.
        let total = try #require(table["Total"])
        let visits = try #require(total["Visits"])
        let digits = Array(visits)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "\u{00A0}" }
            grouped.append(digit)
        }
        #expect(
            html.contains(
                ">Visits</div><div style=\"font-size:22px;font-weight:bold;line-height:1.25;white-space:nowrap\">\(grouped)</div>"
            ))
        #expect(html.contains("against <span style=\"white-space:nowrap\">9–15\u{00A0}Nov\u{00A0}2026</span>"))
        #expect(html.components(separatedBy: "<svg ").count == 7, "a chart per metric")
        #expect(
            !html.contains("http://")
                || html.components(separatedBy: "http://").count
                    == html.components(separatedBy: "xmlns=\"http://www.w3.org/2000/svg\"").count,
            "no network resource")
    }

    @Test func aDimensionReportGoesToStdoutWithItsBars() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let result = try metrika(
            [
                "report", "--counter", "1001", "--dimensions", "trafficSource", "--from", "2026-11-16", "--to",
                "2026-11-22", "--format", "HTML"
            ],
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": Self.now]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("<!DOCTYPE html>") && result.stdout.hasSuffix("</html>\n"))
        #expect(result.stdout.contains("<h2 style=\"margin:8px 0 8px;font-size:16px\">By traffic source</h2>"))
        #expect(
            result.stdout.contains("<title>Pageviews by traffic source: "),
            "the bar view of the top rows, by the first metric")
    }

    @Test func aFailedReportLeavesTheOldPage() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let page = home.path + "/team.html"
        try "old page\n".write(toFile: page, atomically: true, encoding: .utf8)
        // 9999 belongs to someone else: access denied (77) after 1001 was fetched.
        let result = try metrika(
            ["report", "--counter", "1001,9999", "--format", "html", "--output", page],
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": Self.now]))
        #expect(result.status == 77, "\(result.stderr)")
        #expect(try String(contentsOfFile: page, encoding: .utf8) == "old page\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: home.path).filter {
                $0.hasPrefix(".") && $0.contains("team")
            }.isEmpty, "a temporary file left behind")
    }

    @Test(arguments: [
        (["--csv", "--output", "x.csv"], "--output applies to --format html"),
        (["--format", "html", "--json"], "--format html and --json contradict each other"),
        (["--format", "html", "--crlf"], "--crlf applies to CSV output only"),
        (["--format", "pdf"], "--format must be table, csv, json or html, not 'pdf'"),
        (
            ["--format", "html", "--preset", "sources_summary", "--compare"],
            "--compare works for time series and --dimensions reports, not --preset"
        )
    ])
    func misuseIsOneLineAndExit64(_ extra: [String], _ message: String) throws {
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["report", "--counter", "1001"] + extra, environment: metrikaEnvironment(api: nil, home: home.path))
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anOutputThatCannotBeCreatedIsExit73() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let result = try metrika(
            ["report", "--counter", "1001", "--format", "html", "--output", home.path + "/no/such/dir/page.html"],
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": Self.now]))
        #expect(result.status == 73, "\(result.stderr)")
        #expect(
            result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("no/such/dir/page.html"),
            "\(result.stderr)")
        #expect(try api.requestCount(pathPrefix: "/") == 0, "refused before any request")
        let directory = try metrika(
            ["report", "--counter", "1001", "--format", "html", "--output", home.path],
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["METRIKA_NOW": Self.now]))
        #expect(directory.status == 73 && directory.stderr.contains("is a directory"), "\(directory.stderr)")
    }
}
