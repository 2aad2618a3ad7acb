import Foundation
import MetrikaTestSupport
import Testing

/// A shop's week through the built binary and the simulator's shop (counter 1001, roubles), its clock
/// frozen so the numbers are fixed: table, CSV, JSON, another currency, weeks from the history, the
/// same bytes offline with the API gone, a chart, and the purchase preset under an attribution model.
/// One simulator for the suite.
@Suite("Money end to end", .serialized, .blockingLanes)
struct MoneyEndToEndTests {
    static let now = "2026-11-20T12:00:00Z"

    /// The simulator's shop, 2026-11-09 … 2026-11-15, as its daily answers have it: visits,
    /// purchases, revenue in roubles (whole kopecks).
    static let week: [(day: String, visits: Int, purchases: Int, revenue: String)] = [
        ("2026-11-09", 4471, 100, "250582.80"),
        ("2026-11-10", 4804, 112, "288917.44"),
        ("2026-11-11", 4263, 86, "212502.34"),
        ("2026-11-12", 4039, 37, "126399.80"),
        ("2026-11-13", 3728, 88, "273805.63"),
        ("2026-11-14", 3133, 73, "235864.60"),
        ("2026-11-15", 3971, 101, "315153.70")
    ]

    /// Kopecks of a two-decimal text: exact sums without floating point.
    static func kopecks(_ text: String) -> Int {
        let parts = text.split(separator: ".")
        return Int(parts[0])! * 100 + Int(parts[1])!
    }

    /// Kopecks as roubles with two decimals, and a ratio of two whole numbers rounded half up to kopecks.
    static func roubles(_ kopecks: Int) -> String { "\(kopecks / 100).\(String(format: "%02d", kopecks % 100))" }
    static func ratio(_ kopecks: Int, _ count: Int) -> String { roubles((2 * kopecks + count) / (2 * count)) }

    @Test func aShopsWeekReadsAsMoneyOnlineAndOffline() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let db = home.path + "/history.db"
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": Self.now, "METRIKA_DB": db])
        let money = ["--counter", "1001", "--metrics", "visits,purchases,revenue,revenuePerPurchase,revenuePerVisit"]
        let days = ["--from", "2026-11-09", "--to", "2026-11-15"]

        // Hand-computed from the days: revenue 1 703 226.31, 597 purchases, 28 409 visits;
        // average order value 1 703 226.31 / 597 = 2 852.975… → 2 852.98; per visit 59.953… → 59.95.
        let revenue = Self.week.map { Self.kopecks($0.revenue) }.reduce(0, +)
        let purchases = Self.week.map(\.purchases).reduce(0, +)
        let visits = Self.week.map(\.visits).reduce(0, +)
        #expect(Self.roubles(revenue) == "1703226.31")
        #expect(purchases == 597)
        #expect(Self.ratio(revenue, purchases) == "2852.98")
        #expect(Self.ratio(revenue, visits) == "59.95")

        // Days, CSV: plain two-decimal numbers, the currency in the column names.
        let daily = try metrika(["report"] + money + days + ["--csv"], environment: environment)
        #expect(daily.status == 0, "\(daily.stderr)")
        var expected = ["date,visits,purchases,revenue_rub,revenue_per_purchase_rub,revenue_per_visit_rub"]
        for day in Self.week {
            let kopecks = Self.kopecks(day.revenue)
            expected.append(
                "\(day.day),\(day.visits),\(day.purchases),\(day.revenue),\(Self.ratio(kopecks, day.purchases)),\(Self.ratio(kopecks, day.visits))"
            )
        }
        #expect(HistoryTools.lines(daily.stdout) == expected)

        // The week from the stored days: sums, and ratios of the sums.
        let weekly = ["report"] + money + ["--from", "2026-11-02", "--to", "2026-11-15", "--group", "week", "--csv"]
        let weeks = try metrika(weekly, environment: environment)
        #expect(weeks.status == 0, "\(weeks.stderr)")
        #expect(HistoryTools.lines(weeks.stdout).last == "2026-11-09,2026-11-15,28409,597,1703226.31,2852.98,59.95")
        // The same weeks in JSON: money summed as exact decimals. Adding the days' doubles gave
        // 1592345.4899999998 for the week of 2026-11-02 (issue 32, item 8).
        let weeksJSON = try metrika(Array(weekly.dropLast()) + ["--json"], environment: environment)
        #expect(weeksJSON.status == 0, "\(weeksJSON.stderr)")
        #expect(weeksJSON.stdout.contains(#""revenue_rub":1592345.49,"#), "\(weeksJSON.stdout)")
        #expect(weeksJSON.stdout.contains(#""revenue_rub":1703226.31,"#), "\(weeksJSON.stdout)")

        // The table: money with its sign, the Total row as hand-computed.
        let table = try metrika(["report"] + money + days, environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        let total = try #require(HistoryTools.lines(table.stdout).first { $0.hasPrefix("Total") })
        #expect(
            total.hasSuffix("28 409        597  1 703 226.31 ₽           2 852.98 ₽            59.95 ₽"),
            "\(table.stdout)")

        // JSON: the unit and the currency on the column; values in the API's unit.
        let json = try metrika(["report"] + money + days + ["--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let document = try HistoryTools.json(json.stdout)
        let columns = try #require(document["columns"] as? [[String: Any]])
        let column = try #require(columns.first { $0["name"] as? String == "revenue_per_purchase_rub" })
        #expect(column["unit"] as? String == "money")
        #expect(column["currency"] as? String == "RUB")
        #expect(column["title"] as? String == "Average order value")
        #expect(HistoryTools.rows(document).first?["revenue_rub"] as? Double == 250582.8)

        // Another currency on request: another series, converted by the API (90 roubles a dollar here).
        let dollars = try metrika(
            ["report", "--counter", "1001", "--metrics", "revenue", "--currency", "USD", "--group", "week"] + days + [
                "--csv"
            ], environment: environment)
        #expect(dollars.status == 0, "\(dollars.stderr)")
        #expect(HistoryTools.lines(dollars.stdout) == ["date,date_end,revenue_usd", "2026-11-09,2026-11-15,18924.74"])

        // The history keeps each currency apart, with its unit, and the counter's own currency.
        #expect(
            try HistoryTools.sqlite(
                db, "SELECT DISTINCT metric || ' ' || unit FROM daily_values WHERE metric LIKE '%Revenue%' ORDER BY 1")
                == "ym:s:ecommerceRUBConvertedRevenue money:RUB\nym:s:ecommerceRUBConvertedRevenuePerPurchase money:RUB\nym:s:ecommerceRUBConvertedRevenuePerVisit money:RUB\nym:s:ecommerceUSDConvertedRevenue money:USD"
        )
        #expect(try HistoryTools.sqlite(db, "SELECT counter_id || ' ' || currency FROM counter_currency") == "1001 RUB")

        // Goal revenue: the simulator's goal 4001 earns 500 ₽ a reach, so a week's revenue is its reaches × 500.
        let goal = try metrika(
            ["report", "--counter", "1001", "--metrics", "goal4001reaches,goal4001revenue", "--group", "week"] + days
                + ["--csv"], environment: environment)
        #expect(goal.status == 0, "\(goal.stderr)")
        let goalLines = HistoryTools.lines(goal.stdout)
        #expect(goalLines.first == "date,date_end,goal4001_reaches,goal4001_revenue_rub")
        let goalCells = (goalLines.last ?? "").split(separator: ",").map(String.init)
        try #require(goalCells.count == 4)
        #expect(goalCells[3] == "\(Int(goalCells[2])! * 500).00")

        // A chart with a money axis.
        let svgPath = home.path + "/revenue.svg"
        let chart = try metrika(
            ["chart", "--counter", "1001", "--metrics", "revenue"] + days + ["--output", svgPath],
            environment: environment)
        #expect(chart.status == 0, "\(chart.stderr)")
        let svg = String(decoding: try HistoryTools.bytes(svgPath), as: UTF8.self)
        #expect(svg.contains("k ₽</text>"))
        #expect(svg.contains("Revenue (RUB)"))

        // The purchase preset by source, under an older attribution model: mapped, and the heading says so.
        try api.reset()
        let preset = try metrika(
            ["report", "--counter", "1001", "--preset", "purchase", "--attribution", "lastsign"] + days,
            environment: environment)
        #expect(preset.status == 0, "\(preset.stderr)")
        #expect(preset.stderr.contains("answers the attribution model lastsign with cross_device_last_significant"))
        #expect(
            HistoryTools.lines(preset.stdout).first?.hasSuffix("· attribution cross_device_last_significant") == true,
            "\(preset.stdout)")
        #expect(preset.stdout.contains("Traffic source"))
        #expect(preset.stdout.contains(" ₽"))
        // Without --attribution the answer's own model is named too: sources depend on it.
        let unasked = try metrika(
            ["report", "--counter", "1001", "--preset", "purchase"] + days, environment: environment)
        #expect(unasked.status == 0, "\(unasked.stderr)")
        #expect(
            HistoryTools.lines(unasked.stdout).first?.hasSuffix("· attribution lastsign (the API's default)") == true,
            "\(unasked.stdout)")
        let asked = try api.requests().compactMap { $0["query"] as? String }.filter {
            $0.contains("preset=purchase") && $0.contains("attribution=")
        }
        #expect(asked.count == 1)
        #expect(asked.allSatisfy { $0.contains("attribution=cross_device_last_significant") })
        // JSON names the source dimension by the model that answered, never `<attribution>`; the
        // HTML page's heading names the model as the terminal's does (issue 32, item 7).
        let presetJSON = try metrika(
            ["report", "--counter", "1001", "--preset", "purchase", "--attribution", "lastsign"] + days + ["--json"],
            environment: environment)
        #expect(presetJSON.status == 0, "\(presetJSON.stderr)")
        let presetColumns = try #require(try HistoryTools.json(presetJSON.stdout)["columns"] as? [[String: Any]])
        let source = try #require(presetColumns.first { $0["kind"] as? String == "dimension" })
        #expect(source["api_name"] as? String == "ym:s:crossDeviceLastSignificantTrafficSource")
        let presetHTML = try metrika(
            ["report", "--counter", "1001", "--preset", "purchase"] + days + ["--format", "html"],
            environment: environment)
        #expect(presetHTML.status == 0, "\(presetHTML.stderr)")
        #expect(
            presetHTML.stdout.replacingOccurrences(of: "\u{00A0}", with: " ").contains("attribution lastsign (the API"),
            "\(presetHTML.stdout)")

        // Offline with the API gone: the same bytes, in the counter's currency as the history knows it.
        api.stop()
        let offlineWeeks = try metrika(weekly + ["--offline"], environment: environment)
        #expect(offlineWeeks.status == 0, "\(offlineWeeks.stderr)")
        #expect(offlineWeeks.stdout == weeks.stdout)
        let offlineDollars = try metrika(
            ["report", "--counter", "1001", "--metrics", "revenue", "--currency", "USD", "--group", "week", "--offline"]
                + days + ["--csv"], environment: environment)
        #expect(offlineDollars.stdout == dollars.stdout, "\(offlineDollars.stderr)")
    }

    /// Bad input: one line naming the problem and what to do, the right exit code, nothing on stdout.
    @Test func badInput() throws {
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: nil, home: home.path, extra: ["METRIKA_API_URL": "http://127.0.0.1:9"])
        let cases: [([String], Int32, String)] = [
            (
                ["report", "--counter", "1001", "--metrics", "revenue", "--currency", "GBP"], 64,
                "--currency must be one of RUB, USD, EUR, YND, not 'GBP'"
            ),
            (["report", "--counter", "1001", "--metrics", "revenue", "--currency", ""], 64, "--currency"),
            (
                [
                    "chart", "--counter", "1001", "--metrics", "revenue", "--currency", "rubles", "--output",
                    home.path + "/x.svg"
                ], 64, "--currency must be one of"
            ),
            (
                ["report", "--counter", "1001", "--preset", "purchase", "--attribution", "best"], 64,
                "--attribution must be one of automatic"
            ),
            (
                ["report", "--counter", "1001", "--metrics", "revenue", "--attribution", "automatic"], 64,
                "applies to reports by source"
            ),
            (["report", "--counter", "1001", "--metrics", "revenu"], 64, "Unknown metric 'revenu'"),
            (["report", "--counter", "1001", "--currency", "USD"], 64, "--currency applies to money metrics"),
            (
                [
                    "chart", "--counter", "1001", "--metrics", "visits", "--currency", "EUR", "--output",
                    home.path + "/x.svg"
                ], 64, "--currency applies to money metrics"
            ),
            (
                ["mail", "--counter", "1001", "--to", "a@example.com", "--currency", "EUR", "--dry-run"], 64,
                "--currency applies to money metrics"
            )
        ]
        for (arguments, status, message) in cases {
            let result = try metrika(arguments, environment: environment)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: home.path + "/x.svg"))
        }
    }
}
