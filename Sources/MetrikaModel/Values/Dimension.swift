/// A Reporting API dimension (a grouping such as traffic source or date).
package struct Dimension: Hashable, Sendable, CustomStringConvertible {
    /// The API name, e.g. `ym:s:trafficSource`.
    package let apiName: String
    /// The short name users type, e.g. `trafficSource`.
    package let shortName: String
    /// The snake_case column name of CSV and JSON, e.g. `traffic_source`.
    package let columnName: String
    /// A human title for table headers.
    package let title: String

    package init(apiName: String, shortName: String, columnName: String, title: String) {
        self.apiName = apiName
        self.shortName = shortName
        self.columnName = columnName
        self.title = title
    }

    package var description: String { apiName }

    package static let date = Dimension(apiName: "ym:s:date", shortName: "date", columnName: "date", title: "Date")

    /// Dimensions metrika knows by a short name.
    package static let known: [Dimension] = [
        date,
        Dimension(
            apiName: "ym:s:trafficSource", shortName: "trafficSource", columnName: "traffic_source",
            title: "Traffic source"),
        Dimension(
            apiName: "ym:s:searchEngine", shortName: "searchEngine", columnName: "search_engine", title: "Search engine"
        ),
        Dimension(
            apiName: "ym:s:searchPhrase", shortName: "searchPhrase", columnName: "search_phrase", title: "Search phrase"
        ),
        Dimension(apiName: "ym:s:startURL", shortName: "startURL", columnName: "start_url", title: "Entry page"),
        Dimension(apiName: "ym:s:regionCountry", shortName: "country", columnName: "country", title: "Country"),
        Dimension(apiName: "ym:s:regionCity", shortName: "city", columnName: "city", title: "City"),
        Dimension(apiName: "ym:s:browser", shortName: "browser", columnName: "browser", title: "Browser"),
        Dimension(apiName: "ym:s:operatingSystem", shortName: "os", columnName: "os", title: "OS"),
        Dimension(
            apiName: "ym:s:deviceCategory", shortName: "deviceCategory", columnName: "device_category", title: "Device"),
        // The hour of the day (00:00…23:00) over the whole period: when in the day visits come.
        Dimension(apiName: "ym:s:hour", shortName: "hour", columnName: "hour", title: "Hour"),
        // The e-commerce product templates' (top_products, top_brands, basket, basket_products).
        Dimension(apiName: "ym:s:productName", shortName: "productName", columnName: "product_name", title: "Product"),
        Dimension(apiName: "ym:s:productBrand", shortName: "productBrand", columnName: "product_brand", title: "Brand"),
        Dimension(
            apiName: "ym:s:productCategoryLevel1", shortName: "productCategoryLevel1",
            columnName: "product_category_level1", title: "Category")
    ]

    /// The API's date-period dimension `ym:s:datePeriod<group>` as it is named before the request's
    /// `group` fills it in (the `traffic` preset's echo names it so).
    package static let datePeriodPlaceholder = "ym:s:datePeriod<group>"

    /// The periods a `ym:s:datePeriod…` dimension can be cut into, with the column title and the
    /// CSV/JSON name of each: `ym:s:datePeriodweek` is "Week of" and `week`, never `datePeriodweek`.
    static let datePeriods: [(group: String, title: String, column: String)] = [
        ("day", "Date", "date"), ("week", "Week of", "week"), ("month", "Month", "month"),
        ("quarter", "Quarter of", "quarter"), ("year", "Year", "year"), ("hour", "Hour", "hour"),
        ("minute", "Minute", "minute")
    ]

    /// `ym:s:datePeriod<group>` cut by `group` (`day`, `week`, `month`, …): `ym:s:datePeriodweek`,
    /// titled "Week of"; nil for a group the API does not have.
    package static func datePeriod(_ group: String) -> Dimension? {
        guard let period = datePeriods.first(where: { $0.group == group.lowercased() }) else { return nil }
        return Dimension(
            apiName: "ym:s:datePeriod" + period.group, shortName: "datePeriod" + period.group,
            columnName: period.column, title: period.title)
    }

    /// Whether this is a `ym:s:datePeriod…` dimension (one row per period), the placeholder included.
    package var isDatePeriod: Bool { apiName.hasPrefix("ym:s:datePeriod") }

    /// Resolves a short name (`trafficSource`, `os`) or any full `ym:` name (passed through).
    /// `ym:s:datePeriodweek` and its kin get titles people read ("Week of"); the placeholder
    /// `ym:s:datePeriod<group>` (a request without `group`) is titled "Period", never by its name.
    package static func named(_ text: String) -> Dimension? {
        let trimmed = text.trimmingSpaces
        if let dimension = known.first(where: {
            $0.shortName.lowercased() == trimmed.lowercased() || $0.apiName == trimmed
        }) {
            return dimension
        }
        let periodName = trimmed.hasPrefix("ym:s:") ? String(trimmed.dropFirst(5)) : trimmed
        if periodName.lowercased().hasPrefix("dateperiod") {
            let group = String(periodName.dropFirst("datePeriod".count))
            if let dimension = datePeriod(group) { return dimension }
            if group == "<group>" {
                return Dimension(
                    apiName: datePeriodPlaceholder, shortName: "datePeriod<group>", columnName: "period",
                    title: "Period")
            }
        }
        if trimmed.hasPrefix("ym:"), trimmed.count > 5 {
            let tail = String(trimmed.split(separator: ":").last ?? "")
            // `ym:s:<attribution>TrafficSource` (the e-commerce presets): the source under the
            // request's attribution model, named like the dimension it attributes.
            let placeholder = "<attribution>"
            if tail.hasPrefix(placeholder), let first = tail.dropFirst(placeholder.count).first {
                let bare = first.lowercased() + tail.dropFirst(placeholder.count + 1)
                if let dimension = known.first(where: { $0.shortName == bare }) {
                    return Dimension(
                        apiName: trimmed, shortName: dimension.shortName, columnName: dimension.columnName,
                        title: dimension.title)
                }
            }
            return Dimension(apiName: trimmed, shortName: tail, columnName: ColumnName.of(trimmed), title: tail)
        }
        return nil
    }
}

/// One dimension value of a report row: the API's human `name` (nil for undefined values) and its
/// machine `id` when there is one (e.g. traffic source `organic`).
///
/// The name is kept as `SharedText`: read from a report page it is a place in the page's name
/// buffer, and the CSV and JSON sinks copy its bytes (`nameText`) without making a `String`;
/// `name` gives the same text as a `String` for everyone else.
package struct DimensionValue: Hashable, Sendable {
    /// The name as the page reader stored it (nil for undefined values).
    package var nameText: SharedText?
    package var id: String?

    /// The name as a `String`.
    package var name: String? {
        get { nameText?.string }
        set { nameText = newValue.map(SharedText.init) }
    }

    package init(name: String?, id: String? = nil) {
        self.nameText = name.map(SharedText.init)
        self.id = id
    }

    /// A value whose name is already `SharedText` (a page's name buffer).
    package init(nameText: SharedText?, id: String? = nil) {
        self.nameText = nameText
        self.id = id
    }
}
