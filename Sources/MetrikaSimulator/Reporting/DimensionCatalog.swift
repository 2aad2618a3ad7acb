import Foundation

/// A value of a dimension as the Reporting API shows it: `{"name": …, "id": …}`.
struct DimensionValue: Sendable {
    /// The machine value (`organic`, `225`); nil when the dimension has none.
    let id: String?
    /// The English name; nil for an undefined value (shown as `"name": null`).
    let name: String?
    /// The Russian name when it differs from the English one.
    let russianName: String?
    /// Typical share of visits (before per-counter variation).
    let share: Double

    init(_ id: String?, _ name: String?, _ russianName: String? = nil, _ share: Double) {
        self.id = id
        self.name = name
        self.russianName = russianName
        self.share = share
    }

    func name(in language: Language) -> String? {
        language == .russian ? (russianName ?? name) : name
    }
}

/// The `lang` parameter.
enum Language: Sendable {
    case english
    case russian
}

/// The visit attributes the traffic model draws, one per non-date dimension. A visit's attributes
/// form a small tree: a search engine and a phrase exist only for search traffic, a city only
/// within its country.
enum Attribute: Int, CaseIterable, Sendable {
    case trafficSource
    case searchEngine
    case searchPhrase
    case startURL
    case regionCountry
    case regionCity
    case browser
    case operatingSystem
    case deviceCategory
    /// The visit's `utm_source` (last here: the raw values seed the data, and the cases before keep theirs).
    case utmSource

    /// The attribute this one depends on.
    var parent: Attribute? {
        switch self {
        case .searchEngine, .searchPhrase, .utmSource: return .trafficSource
        case .regionCity: return .regionCountry
        default: return nil
        }
    }

    /// The dimension name in the API.
    var apiName: String {
        switch self {
        case .trafficSource: return "ym:s:trafficSource"
        case .searchEngine: return "ym:s:searchEngine"
        case .searchPhrase: return "ym:s:searchPhrase"
        case .startURL: return "ym:s:startURL"
        case .regionCountry: return "ym:s:regionCountry"
        case .regionCity: return "ym:s:regionCity"
        case .browser: return "ym:s:browser"
        case .operatingSystem: return "ym:s:operatingSystem"
        case .deviceCategory: return "ym:s:deviceCategory"
        case .utmSource: return "ym:s:UTMSource"
        }
    }

    /// Names accepted for the attribute (the API's aliases included).
    static func named(_ name: String) -> Attribute? {
        switch name {
        case "ym:s:trafficSource", "ym:s:lastTrafficSource", "ym:s:lastsignTrafficSource",
            "ym:s:<attribution>TrafficSource",
            "ym:s:automaticTrafficSource", "ym:s:cross_device_last_significantTrafficSource",
            "ym:s:cross_device_firstTrafficSource":
            return .trafficSource
        case "ym:s:searchEngine", "ym:s:searchEngineRoot", "ym:s:lastSearchEngine", "ym:s:lastsignSearchEngine",
            "ym:s:lastSearchEngineRoot", "ym:s:lastsignSearchEngineRoot":
            return .searchEngine
        case "ym:s:searchPhrase", "ym:s:lastSearchPhrase", "ym:s:lastsignSearchPhrase": return .searchPhrase
        case "ym:s:startURL", "ym:s:startURLPath": return .startURL
        case "ym:s:regionCountry": return .regionCountry
        case "ym:s:regionCity": return .regionCity
        case "ym:s:browser": return .browser
        case "ym:s:operatingSystem", "ym:s:operatingSystemRoot": return .operatingSystem
        case "ym:s:deviceCategory": return .deviceCategory
        case "ym:s:UTMSource", "ym:s:lastUTMSource", "ym:s:lastsignUTMSource", "ym:s:<attribution>UTMSource",
            "ym:s:automaticUTMSource", "ym:s:firstUTMSource":
            return .utmSource
        default: return nil
        }
    }
}

/// The fixed value lists of the simulated dimensions.
enum DimensionCatalog {
    static let organicIndex = 0

    static let trafficSources: [DimensionValue] = [
        DimensionValue("organic", "Search engine traffic", "Переходы из поисковых систем", 0.42),
        DimensionValue("direct", "Direct traffic", "Прямые заходы", 0.24),
        DimensionValue("referral", "Link traffic", "Переходы по ссылкам на сайтах", 0.09),
        DimensionValue("ad", "Ad traffic", "Переходы по рекламе", 0.08),
        DimensionValue("social", "Social network traffic", "Переходы из социальных сетей", 0.05),
        DimensionValue("internal", "Internal traffic", "Внутренние переходы", 0.04),
        DimensionValue("recommend", "Recommendation system traffic", "Переходы из рекомендательных систем", 0.03),
        DimensionValue("messenger", "Messenger traffic", "Переходы из мессенджеров", 0.02),
        DimensionValue("email", "Mailing traffic", "Переходы с почтовых рассылок", 0.01),
        DimensionValue("saved", "Cached page traffic", "Переходы с сохранённых страниц", 0.005),
        DimensionValue("undefined", "Not determined", "Не определено", 0.005)
    ]

    /// Engines of search traffic; the last entry (no id, null name) is every other visit.
    static let searchEngines: [DimensionValue] = [
        DimensionValue("yandex_search", "Yandex", "Яндекс", 0.62),
        DimensionValue("google", "Google", nil, 0.30),
        DimensionValue("bing", "Bing", nil, 0.025),
        DimensionValue("duckduckgo", "DuckDuckGo", nil, 0.02),
        DimensionValue("mail_ru", "Mail.ru", nil, 0.02),
        DimensionValue("yahoo", "Yahoo!", nil, 0.015),
        DimensionValue(nil, nil, nil, 0)
    ]

    /// Countries by Yandex geo id; the last entry is "not determined" (null name).
    static let countries: [DimensionValue] = [
        DimensionValue("225", "Russia", "Россия", 0.62),
        DimensionValue("159", "Kazakhstan", "Казахстан", 0.07),
        DimensionValue("149", "Belarus", "Беларусь", 0.06),
        DimensionValue("84", "United States", "США", 0.05),
        DimensionValue("96", "Germany", "Германия", 0.04),
        DimensionValue("187", "Ukraine", "Украина", 0.03),
        DimensionValue("171", "Uzbekistan", "Узбекистан", 0.02),
        DimensionValue("983", "Turkey", "Турция", 0.02),
        DimensionValue("102", "United Kingdom", "Великобритания", 0.02),
        DimensionValue("134", "China", "Китай", 0.01),
        DimensionValue(nil, nil, nil, 0.06)
    ]

    /// Cities of each country (same order as `countries`); each list ends with a null-name entry.
    static let cities: [[DimensionValue]] = [
        [
            DimensionValue("213", "Moscow", "Москва", 0.35),
            DimensionValue("2", "Saint Petersburg", "Санкт-Петербург", 0.15),
            DimensionValue("54", "Yekaterinburg", "Екатеринбург", 0.06),
            DimensionValue("65", "Novosibirsk", "Новосибирск", 0.05),
            DimensionValue("43", "Kazan", "Казань", 0.04),
            DimensionValue("47", "Nizhny Novgorod", "Нижний Новгород", 0.03),
            DimensionValue("35", "Krasnodar", "Краснодар", 0.03),
            DimensionValue("39", "Rostov-on-Don", "Ростов-на-Дону", 0.03),
            DimensionValue("51", "Samara", "Самара", 0.03), DimensionValue("172", "Ufa", "Уфа", 0.02),
            DimensionValue("56", "Chelyabinsk", "Челябинск", 0.02), DimensionValue("66", "Omsk", "Омск", 0.02),
            DimensionValue(nil, nil, nil, 0.17)
        ],
        [
            DimensionValue("162", "Almaty", "Алматы", 0.45), DimensionValue("163", "Astana", "Астана", 0.30),
            DimensionValue(nil, nil, nil, 0.25)
        ],
        [
            DimensionValue("157", "Minsk", "Минск", 0.6), DimensionValue("155", "Gomel", "Гомель", 0.15),
            DimensionValue(nil, nil, nil, 0.25)
        ],
        [
            DimensionValue("202", "New York", "Нью-Йорк", 0.3),
            DimensionValue("200", "Los Angeles", "Лос-Анджелес", 0.2),
            DimensionValue("90", "San Francisco", "Сан-Франциско", 0.15), DimensionValue(nil, nil, nil, 0.35)
        ],
        [
            DimensionValue("177", "Berlin", "Берлин", 0.4), DimensionValue("99", "Munich", "Мюнхен", 0.2),
            DimensionValue(nil, nil, nil, 0.4)
        ],
        [
            DimensionValue("143", "Kyiv", "Киев", 0.5), DimensionValue("144", "Lviv", "Львов", 0.15),
            DimensionValue(nil, nil, nil, 0.35)
        ],
        [DimensionValue("10335", "Tashkent", "Ташкент", 0.7), DimensionValue(nil, nil, nil, 0.3)],
        [
            DimensionValue("11508", "Istanbul", "Стамбул", 0.5), DimensionValue("11503", "Ankara", "Анкара", 0.2),
            DimensionValue(nil, nil, nil, 0.3)
        ],
        [DimensionValue("10393", "London", "Лондон", 0.7), DimensionValue(nil, nil, nil, 0.3)],
        [DimensionValue("10590", "Beijing", "Пекин", 0.5), DimensionValue(nil, nil, nil, 0.5)],
        [DimensionValue(nil, nil, nil, 1)]
    ]

    static let browsers: [DimensionValue] = [
        DimensionValue("yandex_browser", "Yandex Browser", "Яндекс Браузер", 0.30),
        DimensionValue("chrome", "Google Chrome", nil, 0.28),
        DimensionValue("chromemobile", "Chrome Mobile", nil, 0.12),
        DimensionValue("mobile_safari", "Mobile Safari", nil, 0.09),
        DimensionValue("safari", "Safari", nil, 0.08),
        DimensionValue("firefox", "Firefox", nil, 0.04),
        DimensionValue("edge", "Microsoft Edge", nil, 0.04),
        DimensionValue("opera", "Opera", nil, 0.03),
        DimensionValue("samsung_internet", "Samsung Internet", nil, 0.02)
    ]

    static let operatingSystems: [DimensionValue] = [
        DimensionValue("windows", "Windows", nil, 0.38),
        DimensionValue("android", "Google Android", nil, 0.34),
        DimensionValue("ios", "iOS", nil, 0.15),
        DimensionValue("macos", "macOS", nil, 0.07),
        DimensionValue("linux", "GNU/Linux", nil, 0.03),
        DimensionValue(nil, nil, nil, 0.03)
    ]

    static let deviceCategories: [DimensionValue] = [
        DimensionValue("desktop", "PC", "ПК", 0.52),
        DimensionValue("mobile", "Smartphones", "Смартфоны", 0.42),
        DimensionValue("tablet", "Tablets", "Планшеты", 0.05),
        DimensionValue("tv", "TV", "ТВ", 0.01)
    ]

    /// `utm_source` values (no `id`, the name is the tag as written); the last entry (null name) is
    /// every visit without one.
    static let utmSources: [String?] = [
        "yandex", "google", "vk", "mytarget", "telegram", "ok", "newsletter", "whatsapp", nil
    ]

    /// The shares of `utmSources` under a traffic source (by index into `trafficSources`): tagged
    /// links are ads, social posts, mailings and messenger posts; other traffic has no tag.
    static func utmShares(trafficSource: Int) -> [DimensionValue] {
        let shares: [Double]
        switch trafficSources.indices.contains(trafficSource) ? trafficSources[trafficSource].id : nil {
        case "ad": shares = [0.55, 0.25, 0.1, 0.06, 0, 0, 0, 0, 0.04]
        case "social": shares = [0, 0, 0.5, 0, 0.2, 0.12, 0, 0, 0.18]
        case "email": shares = [0, 0, 0, 0, 0, 0, 0.85, 0, 0.15]
        case "messenger": shares = [0, 0, 0, 0, 0.6, 0, 0, 0.25, 0.15]
        default: shares = [0, 0, 0, 0, 0, 0, 0, 0, 1]
        }
        return zip(utmSources, shares).map { DimensionValue(nil, $0, nil, $1) }
    }

    /// Page paths a counter's visits start on (joined to the counter's site).
    static let startPaths: [String] = [
        "/", "/catalog", "/catalog/sofas", "/catalog/chairs?color=red&size=m", "/news", "/news/2026/06/summer-sale",
        "/about", "/contacts", "/delivery", "/blog/how-to-choose", "/search?q=%D0%B4%D0%B8%D0%B2%D0%B0%D0%BD",
        "/product/12345", "/product/67890", "/cart", "/checkout", "/account/login", "/help/faq", "/promo/black-friday",
        "/catalog/tables", "/catalog/lamps", "/blog/interior-trends", "/reviews", "/stores/moscow",
        "/stores/ekaterinburg",
        "/en/", "/privacy", "/sitemap", "/blog/%D1%80%D0%BE%D0%BC%D0%B0%D1%88%D0%BA%D0%B0", "/gift-cards", "/jobs"
    ]

    /// The Russian/English `lang`-independent name of a start URL.
    static func startURL(site: String, index: Int) -> String {
        "https://\(site)\(startPaths[index])"
    }
}
