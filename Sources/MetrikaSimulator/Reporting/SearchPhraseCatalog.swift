import Foundation

/// The search phrases visitors type, generated from word lists: index 0 is the most popular.
///
/// Phrase `i` combines an intent, an object and a modifier, chosen so that low indexes are short,
/// common phrases. A few low indexes are replaced by phrases that test a client's escaping: one with
/// a comma, one with double quotes, one with an embedded newline.
enum SearchPhraseCatalog {
    static let intents = [
        "купить", "заказать", "цена", "отзывы", "как выбрать", "лучший", "недорогой", "скидки на", "доставка",
        "ремонт", "аренда", "сравнение", "характеристики", "фото", "где купить", "инструкция", "buy", "cheap", "best",
        "review", "how to fix", "price", "новый", "б/у", "распродажа", "акция", "интернет магазин", "каталог",
        "производитель", "рейтинг", "топ 10", "своими руками", "размеры", "вес", "гарантия на", "кредит на",
        "в рассрочку", "оптом", "аксессуары для", "чехол для"
    ]

    static let objects = [
        "диван", "кресло", "стол", "стул", "шкаф", "кровать", "матрас", "лампа", "ковёр", "комод", "полка", "тумба",
        "зеркало", "люстра", "торшер", "пуф", "табурет", "стеллаж", "вешалка", "кухня", "смартфон", "ноутбук",
        "телевизор", "холодильник", "пылесос", "чайник", "микроволновка", "утюг", "фен", "наушники", "планшет",
        "часы", "велосипед", "самокат", "палатка", "рюкзак", "кроссовки", "куртка", "платье", "джинсы", "sofa",
        "chair", "desk", "lamp", "laptop", "phone", "headphones", "bike", "tent", "backpack", "рамен", "суши",
        "пицца", "кофемашина", "блендер", "мультиварка", "посудомойка", "стиральная машина", "кондиционер",
        "обогреватель", "роутер", "принтер", "монитор", "клавиатура", "мышь", "колонка", "камера", "объектив",
        "штатив", "дрон", "игровая приставка", "гитара", "пианино", "коляска", "автокресло"
    ]

    static let modifiers = [
        "", "москва", "спб", "екатеринбург", "новосибирск", "казань", "2026", "2025", "отзывы", "цена", "недорого",
        "белый", "чёрный", "серый", "красный", "большой", "маленький", "для дома", "для офиса", "для дачи",
        "детский", "угловой", "раскладной", "икеа", "xiaomi", "samsung", "apple", "бу авито", "с доставкой",
        "в наличии", "со скидкой", "онлайн", "официальный сайт", "видео", "купить", "дешево", "премиум", "эконом",
        "на заказ", "из дерева", "металлический", "кожаный", "тканевый", "складной", "mini", "pro", "max", "plus",
        "2 в 1", "с подсветкой", "беспроводной", "игровой", "умный", "электрический", "ручной", "компактный",
        "мягкий", "прочный", "тихий", "яркий"
    ]

    /// Phrases that test CSV and JSON escaping, at fixed popular ranks.
    static let tricky: [Int: String] = [
        2: "купить диван, недорого",
        5: "\"ромашка\" интернет-магазин",
        9: "рамен\nрецепт дома",
        14: "диван 2\"x3\" <b>&</b> \\ обивка"
    ]

    /// How many distinct phrases exist.
    static var capacity: Int { intents.count * objects.count * modifiers.count }

    /// Phrase number `index` (0 = the most popular). Composed on demand: a 100,000-row report
    /// needs only the phrases it prints.
    static func phrase(_ index: Int) -> String {
        tricky[index] ?? compose(index)
    }

    private static func compose(_ index: Int) -> String {
        let intent = intents[index % intents.count]
        let object = objects[(index / intents.count) % objects.count]
        let modifier = modifiers[index / (intents.count * objects.count)]
        return modifier.isEmpty ? "\(intent) \(object)" : "\(intent) \(object) \(modifier)"
    }
}
