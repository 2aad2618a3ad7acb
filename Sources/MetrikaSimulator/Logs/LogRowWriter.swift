import Foundation

/// Writes deterministic Logs API rows as TSV, escaped the way ClickHouse's TabSeparated format
/// escapes (`\t`, `\n`, `\\` inside values; arrays as `[1,2]` and `['a','b']`).
///
/// A row is a pure function of (counter, day, index in the day, field): nothing is stored, so a
/// part of millions of rows is produced batch by batch in constant memory.
struct LogRowWriter: Sendable {
    let counter: CounterFixture
    let source: LogSource
    /// Field names as requested, prefix included.
    let requested: [String]
    /// Real-world shapes to write (`--logs-quirks`).
    let quirks: Set<LogsQuirk>
    /// The fields in the order the part lists them: as requested, or sorted (`header_order`).
    let fields: [String]

    init(counter: CounterFixture, source: LogSource, fields: [String], quirks: Set<LogsQuirk> = []) {
        self.counter = counter
        self.source = source
        requested = fields
        self.quirks = quirks
        self.fields = quirks.contains(.headerOrder) ? fields.sorted { $0.lowercased() < $1.lowercased() } : fields
    }

    /// Sources and their field prefixes.
    enum LogSource: String, Sendable {
        case visits, hits
        var prefix: String { self == .visits ? "ym:s:" : "ym:pv:" }
    }

    static let trafficSources = ["organic", "direct", "referral", "ad", "social", "internal", "email"]
    static let cities = [
        ("Россия", "Москва", 225, 213), ("Россия", "Санкт-Петербург", 225, 2), ("Беларусь", "Минск", 149, 157),
        ("Germany", "Berlin", 96, 177)
    ]
    static let devices = ["desktop", "mobile", "tablet"]
    static let browsers = ["Chrome", "Yandex Browser", "Safari", "Firefox"]
    static let utmSources = ["", "yandex", "google", "vk", "telegram"]

    /// The TSV header line: the requested field names (a byte order mark first with `bom`).
    var header: [UInt8] {
        (quirks.contains(.bom) ? [0xEF, 0xBB, 0xBF] : []) + Array((fields.joined(separator: "\t") + lineEnd).utf8)
    }

    var lineEnd: String { quirks.contains(.crlf) ? "\r\n" : "\n" }

    /// Appends row `index` of `day` to `out`.
    func appendRow(day: Day, index: Int, into out: inout [UInt8]) {
        let key = counter.id &* 1_000_003 &+ day.number
        let h = Seed.hash(key, index, 1)
        for (position, field) in fields.enumerated() {
            if position > 0 { out.append(9) }
            let name = field.hasPrefix(source.prefix) ? String(field.dropFirst(source.prefix.count)) : field
            appendValue(name, day: day, index: index, h: h, into: &out)
        }
        if quirks.contains(.crlf) { out.append(13) }
        out.append(10)
    }

    /// An array literal as the API writes it: as is, its element quotes escaped again
    /// (`escaped_array_quotes`), and, when an element holds `"`, also wrapped in CSV quotes
    /// (`csv_quoted_array`).
    private func appendArray(_ literal: String, into out: inout [UInt8]) {
        guard quirks.contains(.escapedArrayQuotes) || (quirks.contains(.csvQuotedArray) && literal.contains("\""))
        else {
            out.append(contentsOf: literal.utf8)
            return
        }
        var escaped = ""
        for character in literal {
            if character == "\\" || character == "'" { escaped.append("\\") }
            escaped.append(character)
        }
        if quirks.contains(.csvQuotedArray), literal.contains("\"") {
            escaped = "\"" + escaped.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        out.append(contentsOf: escaped.utf8)
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private func appendValue(_ name: String, day: Day, index: Int, h: UInt64, into out: inout [UInt8]) {
        let second = Int(h % 86_400)
        let city = LogRowWriter.cities[Int((h >> 8) % UInt64(LogRowWriter.cities.count))]
        switch name {
        case "visitID", "watchID":
            // Unique per (counter, day, index), within UInt64 and above Int64's max for some rows.
            out.append(contentsOf: String(Seed.hash(counter.id, day.number, index) | (1 << 63)).utf8)
        case "clientID":
            out.append(contentsOf: String(Seed.hash(counter.id, index % 5_000, 7) >> 1).utf8)
        case "counterID":
            out.append(contentsOf: String(counter.id).utf8)
        case "date":
            out.append(contentsOf: day.string.utf8)
        case "dateTime", "dateTimeUTC":
            out.append(contentsOf: LogRowWriter.dateTime(day: day, second: second).utf8)
        case "isNewUser", "bounce", "link", "download", "isPageView", "notBounce", "artificial", "iFrame", "hasGCLID":
            out.append((h >> UInt64(name.utf8.count % 50)) & 1 == 1 ? 49 : 48)
        case "cookieEnabled", "javascriptEnabled":
            out.append(49)
        case "pageViews":
            out.append(contentsOf: String(1 + Int((h >> 16) % 8)).utf8)
        case "visitDuration":
            out.append(contentsOf: String(Int((h >> 20) % 1_800)).utf8)
        case "regionCountry": LogRowWriter.appendEscaped(city.0, into: &out)
        case "regionCity": LogRowWriter.appendEscaped(city.1, into: &out)
        case "regionCountryID": out.append(contentsOf: String(city.2).utf8)
        case "regionCityID": out.append(contentsOf: String(city.3).utf8)
        case "lastTrafficSource", "lastsignTrafficSource", "traficSource":
            out.append(contentsOf: LogRowWriter.trafficSources[Int((h >> 24) % 7)].utf8)
        case "UTMSource":
            out.append(contentsOf: LogRowWriter.utmSources[Int((h >> 28) % 5)].utf8)
        case "deviceCategory":
            out.append(contentsOf: LogRowWriter.devices[Int((h >> 32) % 3)].utf8)
        case "browser":
            out.append(contentsOf: LogRowWriter.browsers[Int((h >> 34) % 4)].utf8)
        case "screenWidth": out.append(contentsOf: String([1920, 1366, 390, 768][Int((h >> 36) % 4)]).utf8)
        case "screenHeight": out.append(contentsOf: String([1080, 768, 844, 1024][Int((h >> 36) % 4)]).utf8)
        case "clientTimeZone": out.append(contentsOf: "180".utf8)
        case "startURL", "endURL", "URL":
            out.append(contentsOf: "https://\(counter.site)/page/\(Int((h >> 40) % 500))?q=".utf8)
            // Every 7th row carries the characters the escaping exists for.
            if index % 7 == 3 { LogRowWriter.appendEscaped("поиск\ttab\\slash\nline", into: &out) }
        case "referer":
            if index % 3 == 0 { out.append(contentsOf: "https://yandex.ru/search/?text=".utf8) }
        case "title":
            LogRowWriter.appendEscaped(
                index % 5 == 0 ? "Главная\t«кавычки»\\n" : "Page \(Int((h >> 40) % 500))", into: &out)
        case "goalsID":
            out.append(91)
            let reached = counter.goals.enumerated().filter { (offset, _) in (h >> UInt64(44 + offset)) & 3 == 0 }
            out.append(contentsOf: reached.map { String($0.element.id) }.joined(separator: ",").utf8)
            out.append(93)
        case "goalsDateTime", "purchaseDateTime":
            appendArray(index % 4 == 0 ? "['\(LogRowWriter.dateTime(day: day, second: second))']" : "[]", into: &out)
        case "goalsOrder", "purchaseID", "productsName", "productsID":
            // Quotes inside array strings are escaped by the array syntax, not by the TSV layer; every
            // 8th row names a product in inches (a double quote, logs_api_integration#33).
            appendArray(
                index % 8 == 0 ? "['Телевизор 55\"','товар \\'A\\'']" : index % 4 == 0 ? "['товар \\'A\\'','b']" : "[]",
                into: &out)
        case "purchaseRevenue", "productsPrice":
            out.append(contentsOf: (index % 4 == 0 ? "[1499.5,20]" : "[]").utf8)
        case "goalsPrice", "purchaseProductQuantity":
            out.append(contentsOf: (index % 4 == 0 ? "[100,2]" : "[]").utf8)
        case "params":
            LogRowWriter.appendEscaped(index % 6 == 0 ? "{\"key\":\"a\\\\b\"}" : "", into: &out)
        default:
            out.append(contentsOf: "v\(Int(h % 100))".utf8)
        }
    }

    static func dateTime(day: Day, second: Int) -> String {
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(day.string) \(pad(second / 3600)):\(pad(second / 60 % 60)):\(pad(second % 60))"
    }

    /// TabSeparated escaping of one value.
    static func appendEscaped(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case 9: out.append(contentsOf: [92, 116])
            case 10: out.append(contentsOf: [92, 110])
            case 13: out.append(contentsOf: [92, 114])
            case 0: out.append(contentsOf: [92, 48])
            case 92: out.append(contentsOf: [92, 92])
            default: out.append(byte)
            }
        }
    }
}
