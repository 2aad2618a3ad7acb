/// The parameters of a Reporting API query (everything but paging).
package struct StatQuery: Sendable, Equatable {
    package var ids: [Int]
    package var metrics: [String]
    package var dimensions: [String]
    package var date1: String
    package var date2: String
    package var filters: String?
    package var sort: String?
    package var accuracy: String?
    package var preset: String?
    package var lang: String?
    package var group: String?
    /// `currency`: the currency of `<currency>` in money metrics (`RUB`, `USD`, `EUR`, `YND`);
    /// nil sends none, and the API answers in the counter's own.
    package var currency: String?
    /// `attribution`: the attribution model of `<attribution>` dimensions; nil sends none (the API's default).
    package var attribution: String?

    package init(
        ids: [Int], metrics: [String], dimensions: [String] = [], date1: String, date2: String, filters: String? = nil,
        sort: String? = nil, accuracy: String? = "full", preset: String? = nil, lang: String? = nil,
        group: String? = nil, currency: String? = nil, attribution: String? = nil
    ) {
        self.ids = ids
        self.metrics = metrics
        self.dimensions = dimensions
        self.date1 = date1
        self.date2 = date2
        self.filters = filters
        self.sort = sort
        self.accuracy = accuracy
        self.preset = preset
        self.lang = lang
        self.group = group
        self.currency = currency
        self.attribution = attribution
    }

    var items: [(String, String)] {
        var items: [(String, String)] = [("ids", ids.map(String.init).joined(separator: ","))]
        if !metrics.isEmpty { items.append(("metrics", metrics.joined(separator: ","))) }
        if !dimensions.isEmpty { items.append(("dimensions", dimensions.joined(separator: ","))) }
        items.append(("date1", date1))
        items.append(("date2", date2))
        if let filters { items.append(("filters", filters)) }
        if let sort { items.append(("sort", sort)) }
        if let accuracy { items.append(("accuracy", accuracy)) }
        if let preset { items.append(("preset", preset)) }
        if let lang { items.append(("lang", lang)) }
        if let group { items.append(("group", group)) }
        if let currency { items.append(("currency", currency)) }
        if let attribution { items.append(("attribution", attribution)) }
        return items
    }
}
