import Foundation
import MetrikaTestSupport
import Testing

/// The e-commerce product templates through the built binary and the simulator's shop (counter 1001,
/// roubles, the week 2026-11-09 … 2026-11-15 of MoneyEndToEndTests): money read as money in the
/// table, CSV and JSON, names aligned, the items' revenue equal to the shop's, another currency, and a
/// counter that sells nothing. One simulator for the suite.
@Suite("Product presets end to end", .serialized, .blockingLanes)
struct ProductPresetsEndToEndTests {
    static let now = "2026-11-20T12:00:00Z"
    static let week = ["--from", "2026-11-09", "--to", "2026-11-15"]
    /// The shop's revenue that week, hand-computed from its days in MoneyEndToEndTests.
    static let weekRevenue = "1703226.31"

    /// Kopecks of a two-decimal text: exact sums without floating point.
    static func kopecks(_ text: String) -> Int {
        let parts = text.split(separator: ".")
        return Int(parts[0])! * 100 + Int(parts[1])!
    }

    @Test func theShopsProductsReadAsMoneyAndAddUpToItsRevenue() throws {
        let api = try FakeAPI(arguments: ["--now", Self.now])
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": Self.now, "METRIKA_DB": home.path + "/history.db"])

        // CSV: the template's columns, money as plain two-decimal numbers in a `_rub` column.
        let csv = try metrika(
            ["report", "--counter", "1001", "--preset", "basket", "--limit", "100"] + Self.week + ["--csv"],
            environment: environment)
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = HistoryTools.lines(csv.stdout)
        #expect(
            lines.first
                == "product_name,product_baskets_quantity,product_baskets_uniq,basket_value_rub,product_purchased_quantity"
        )
        #expect((13...25).contains(lines.count), "\(lines.count) lines")
        // A name with a comma and quotes is one quoted field.
        #expect(lines.contains { $0.hasPrefix("\"Стол журнальный \"\"Ясень\"\", 80×50\",") }, "\(csv.stdout)")
        for line in lines.dropFirst() {
            let money = try #require(line.split(separator: ",").dropLast().last.map(String.init))
            #expect(money.wholeMatch(of: /\d+\.\d\d/) != nil, "\(line)")
        }

        // The table: the sign, human titles, and every line as wide as the rules (Cyrillic names aligned).
        let table = try metrika(
            ["report", "--counter", "1001", "--preset", "basket", "--limit", "100"] + Self.week,
            environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        let rows = Array(HistoryTools.lines(table.stdout).dropFirst())
        let header = try #require(rows.first)
        for title in ["Product", "Added to basket", "Users who added", "Basket value", "Purchased items"] {
            #expect(header.contains(title), "\(header)")
        }
        let width = try #require(rows.dropFirst().first).count
        #expect(rows.allSatisfy { $0.count == width }, "\(table.stdout)")
        #expect(rows.filter { $0.hasSuffix(" ₽") || $0.contains(" ₽ ") }.count == lines.count)
        #expect(rows.last?.hasPrefix("Total") == true)

        // JSON: the money column says so.
        let json = try metrika(
            ["report", "--counter", "1001", "--preset", "basket", "--limit", "2"] + Self.week + ["--json"],
            environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let columns = try #require(try HistoryTools.json(json.stdout)["columns"] as? [[String: Any]])
        let value = try #require(columns.first { $0["name"] as? String == "basket_value_rub" })
        #expect(value["unit"] as? String == "money")
        #expect(value["currency"] as? String == "RUB")
        #expect(value["title"] as? String == "Basket value")

        // Items ordered: their revenue is the shop's revenue of the week, to the kopeck.
        let ordered = try metrika(
            ["report", "--counter", "1001", "--preset", "basket_products", "--limit", "100"] + Self.week + ["--csv"],
            environment: environment)
        #expect(ordered.status == 0, "\(ordered.stderr)")
        let orderedLines = HistoryTools.lines(ordered.stdout)
        #expect(
            orderedLines.first == "product_name,product_purchased_quantity,product_revenue_rub,product_purchased_uniq")
        let revenue = orderedLines.dropFirst().map { line in
            Self.kopecks(String(Array(line.split(separator: ",").reversed())[1]))
        }
        #expect(revenue.reduce(0, +) == Self.kopecks(Self.weekRevenue))

        // In dollars (90 ₽ each in the simulator): the API converts, the Total is the week's revenue in USD.
        let dollars = try metrika(
            ["report", "--counter", "1001", "--preset", "basket_products", "--currency", "USD", "--limit", "3"]
                + Self.week, environment: environment)
        #expect(dollars.status == 0, "\(dollars.stderr)")
        #expect(HistoryTools.lines(dollars.stdout)[1].contains("Product revenue"))
        let total = try #require(HistoryTools.lines(dollars.stdout).last)
        #expect(total.hasPrefix("Total") && total.contains(" 18 924.74 $ "), "\(dollars.stdout)")

        // Categories and brands.
        let brands = try metrika(
            ["report", "--counter", "1001", "--preset", "top_brands", "--limit", "3"] + Self.week,
            environment: environment)
        #expect(brands.status == 0, "\(brands.stderr)")
        let brandHeader = HistoryTools.lines(brands.stdout)[1]
        #expect(
            brandHeader.hasPrefix("Category") && brandHeader.contains("Brand") && brandHeader.contains("Item views"),
            "\(brands.stdout)")

        // A counter without e-commerce: the header, no rows, exit 0.
        let none = try metrika(
            ["report", "--counter", "1004", "--preset", "top_products"] + Self.week + ["--csv"],
            environment: environment)
        #expect(none.status == 0, "\(none.stderr)")
        #expect(
            HistoryTools.lines(none.stdout) == [
                "product_name,product_impressions,product_impressions_uniq,product_baskets_quantity,product_purchased_quantity"
            ])

        // Bad input: one line, exit 64, nothing on stdout.
        let bad = try metrika(
            ["report", "--counter", "1001", "--preset", "basket", "--currency", "RUR"] + Self.week,
            environment: environment)
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: --currency must be one of RUB, USD, EUR, YND, not 'RUR'"), "\(bad.stderr)")
        #expect(bad.stdout.isEmpty)
    }
}
