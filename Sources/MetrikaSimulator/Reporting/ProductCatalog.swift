import Foundation

/// A product dimension of the e-commerce reports (Reporting API, preset_ecommerce).
enum ProductField: Int, CaseIterable, Sendable {
    case name
    case brand
    case categoryLevel1

    /// The dimension name in the API.
    var apiName: String {
        switch self {
        case .name: return "ym:s:productName"
        case .brand: return "ym:s:productBrand"
        case .categoryLevel1: return "ym:s:productCategoryLevel1"
        }
    }

    static func named(_ name: String) -> ProductField? {
        allCases.first { $0.apiName == name }
    }
}

/// One product a shop may sell: the strings the shop sends with its e-commerce events, and its
/// catalogue price before a counter's own calibration.
struct ProductEntry: Sendable {
    let name: String
    let category: Int
    let brand: Int
    let priceRoubles: Int
}

/// The product pool every simulated shop draws its assortment from: a home-goods shop (the demo
/// shop «Ромашка» has /catalog/sofas, /catalog/lamps...). Names are the shop's own strings, so they
/// are the same whatever `lang` asks for; a few carry a comma, ASCII quotes or «» on purpose.
/// Indexes into `pool`, `brands` and `categories` are the dimension values of a report row, so rows
/// of several shops merge by product.
enum ProductCatalog {
    static let categories = ["Диваны и кресла", "Столы и стулья", "Хранение", "Освещение", "Текстиль", "Декор", "Кухня"]

    static let brands = [
        "Ромашка Home", "Уютный дом", "Северный лес", "Лофт-Мастер", "Светлица", "Мягкий край", "Дубрава"
    ]

    static let pool: [ProductEntry] = [
        ProductEntry(name: "Диван-кровать «Бергамо»", category: 0, brand: 5, priceRoubles: 39_990),
        ProductEntry(name: "Кресло «Вереск»", category: 0, brand: 5, priceRoubles: 12_490),
        ProductEntry(name: "Пуф «Облако»", category: 0, brand: 0, priceRoubles: 3_290),
        ProductEntry(name: "Стол обеденный «Дубрава» 160×90", category: 1, brand: 6, priceRoubles: 24_990),
        ProductEntry(name: "Стул «Лофт» чёрный", category: 1, brand: 3, priceRoubles: 4_490),
        ProductEntry(name: "Табурет барный «Эспрессо»", category: 1, brand: 3, priceRoubles: 5_990),
        ProductEntry(name: "Стол журнальный \"Ясень\", 80×50", category: 1, brand: 2, priceRoubles: 7_990),
        ProductEntry(name: "Комод «Норд», 4 ящика", category: 2, brand: 2, priceRoubles: 15_990),
        ProductEntry(name: "Стеллаж «Лофт» 5 полок", category: 2, brand: 3, priceRoubles: 8_990),
        ProductEntry(name: "Корзина плетёная для белья", category: 2, brand: 0, priceRoubles: 1_490),
        ProductEntry(name: "Полка настенная «Рейка» 60 см", category: 2, brand: 2, priceRoubles: 1_990),
        ProductEntry(name: "Торшер «Светлица» с тканевым абажуром", category: 3, brand: 4, priceRoubles: 6_490),
        ProductEntry(name: "Лампа настольная «Луч»", category: 3, brand: 4, priceRoubles: 2_790),
        ProductEntry(name: "Гирлянда «Светлячки» 10 м", category: 3, brand: 4, priceRoubles: 890),
        ProductEntry(name: "Плед «Мягкий край» 150×200", category: 4, brand: 5, priceRoubles: 1_990),
        ProductEntry(name: "Подушка декоративная «Ромашка» 45×45", category: 4, brand: 0, priceRoubles: 790),
        ProductEntry(name: "Постельное бельё «Лён», евро", category: 4, brand: 1, priceRoubles: 5_490),
        ProductEntry(name: "Шторы блэкаут «Туман», 2 шт.", category: 4, brand: 1, priceRoubles: 3_990),
        ProductEntry(name: "Ковёр «Сканди» 160×230", category: 4, brand: 2, priceRoubles: 9_990),
        ProductEntry(name: "Ваза керамическая «Капля»", category: 5, brand: 0, priceRoubles: 1_290),
        ProductEntry(name: "Зеркало в раме «Овал» 50×70", category: 5, brand: 1, priceRoubles: 4_990),
        ProductEntry(name: "Часы настенные «Минимал»", category: 5, brand: 3, priceRoubles: 2_190),
        ProductEntry(name: "Свеча ароматическая «Хвоя»", category: 5, brand: 0, priceRoubles: 590),
        ProductEntry(name: "Набор кружек «Утро», 4 шт.", category: 6, brand: 1, priceRoubles: 1_690),
        ProductEntry(name: "Сковорода чугунная 26 см", category: 6, brand: 6, priceRoubles: 2_990),
        ProductEntry(name: "Разделочная доска «Дуб»", category: 6, brand: 6, priceRoubles: 990),
        ProductEntry(name: "Набор ножей «Шеф», 5 предметов", category: 6, brand: 1, priceRoubles: 4_590),
        ProductEntry(name: "Чайник заварочный «Самовар» 0,8 л", category: 6, brand: 0, priceRoubles: 1_390)
    ]

    /// The value of `field` for value index `index` (a pool, brand or category index).
    static func describe(_ field: ProductField, _ index: Int) -> String? {
        switch field {
        case .name: return pool.indices.contains(index) ? pool[index].name : nil
        case .brand: return brands.indices.contains(index) ? brands[index] : nil
        case .categoryLevel1: return categories.indices.contains(index) ? categories[index] : nil
        }
    }

    /// The value index of product `product` (a pool index) under `field`.
    static func value(_ field: ProductField, ofProduct product: Int) -> Int {
        switch field {
        case .name: return product
        case .brand: return pool[product].brand
        case .categoryLevel1: return pool[product].category
        }
    }
}
