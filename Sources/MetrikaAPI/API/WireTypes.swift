import Foundation
import MetrikaModel

// MARK: - Management API

/// `GET /management/v1/counters`: `{"rows": total, "counters": [...]}`.
struct CounterListResponse: Decodable, Sendable {
    let rows: Int
    let counters: [WireCounter]

    enum CodingKeys: String, CodingKey { case rows, counters }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        counters = try container.decodeIfPresent([WireCounter].self, forKey: .counters) ?? []
        rows = try container.flexibleInt(.rows) ?? counters.count
    }
}

/// `GET /management/v1/counter/{id}`: `{"counter": {...}}`.
struct CounterResponse: Decodable, Sendable {
    let counter: WireCounter
}

/// A counter object of the Management API; only the fields metrika uses, everything else ignored.
struct WireCounter: Decodable, Sendable {
    let counter: Counter
    /// The counter's goals when the list was asked with `field=goals` (nil: not there).
    let goals: [Goal]?

    enum CodingKeys: String, CodingKey {
        case id, name, site, site2, status, permission, goals
        case ownerLogin = "owner_login"
        case timeZoneName = "time_zone_name"
        case timeZoneOffset = "time_zone_offset"
        case createTime = "create_time"
        case favorite
    }

    struct Site2: Decodable, Sendable { let site: String? }

    /// A counter as merged over several profiles' lists, with the goals its owner's list carried.
    init(counter: Counter, goals: [Goal]?) {
        self.counter = counter
        self.goals = goals
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = try container.flexibleInt(.id) else {
            throw DecodingError.keyNotFound(
                CodingKeys.id, .init(codingPath: container.codingPath, debugDescription: "counter without id"))
        }
        let site2 = try? container.decodeIfPresent(Site2.self, forKey: .site2)
        let site = try container.flexibleString(.site) ?? site2?.site ?? ""
        counter = Counter(
            id: id,
            name: try container.flexibleString(.name) ?? "",
            site: site,
            status: try container.flexibleString(.status) ?? "Active",
            permission: try container.flexibleString(.permission) ?? "",
            ownerLogin: try container.flexibleString(.ownerLogin) ?? "",
            timeZoneName: try container.flexibleString(.timeZoneName) ?? "Europe/Moscow",
            timeZoneOffsetMinutes: try container.flexibleInt(.timeZoneOffset) ?? 180,
            createTime: try container.flexibleString(.createTime),
            isFavorite: try container.flexibleBool(.favorite) ?? false
        )
        // A goals member that is not a list says nothing about the goals: unknown, read on their own.
        goals = (try? container.decodeIfPresent([GoalsResponse.WireGoal].self, forKey: .goals))?.map {
            $0.compactMap(\.goal)
        }
    }
}

/// `GET /management/v1/counter/{id}/goals`: `{"goals": [{"id", "name", "type", …}]}`; a goal
/// without an id is skipped (it could not name a column), everything else defaults.
struct GoalsResponse: Decodable, Sendable {
    let goals: [Goal]

    enum CodingKeys: String, CodingKey { case goals }

    struct WireGoal: Decodable, Sendable {
        let goal: Goal?

        enum CodingKeys: String, CodingKey { case id, name, type }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            goal = try container.flexibleInt(.id).map {
                Goal(
                    id: $0, name: try container.flexibleString(.name) ?? "",
                    type: try container.flexibleString(.type) ?? "")
            }
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.goals) else {
            throw DecodingError.keyNotFound(
                CodingKeys.goals, .init(codingPath: container.codingPath, debugDescription: "no goals list"))
        }
        goals = (try container.decodeIfPresent([WireGoal].self, forKey: .goals) ?? []).compactMap(\.goal)
    }
}

// MARK: - Reporting API

/// A dimension value of a report row: `name` always (may be null), `id` often, more keys ignored.
struct WireDimension: Decodable, Sendable, Equatable {
    let name: String?
    let id: String?

    init(name: String?, id: String?) {
        self.name = name
        self.id = id
    }

    enum CodingKeys: String, CodingKey { case name, id }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.flexibleString(.name)
        id = try container.flexibleString(.id)
    }
}

/// One row of `/stat/v1/data`.
struct WireDataRow: Decodable, Sendable, Equatable {
    let dimensions: [WireDimension]
    let metrics: [WireNumber]
}

/// `GET /stat/v1/data`, the fields metrika uses.
package struct StatDataPage: Decodable, Sendable, Equatable {
    /// The rows, flat, their names in one buffer (`StatDataRows`).
    let table: StatDataRows
    /// Rows in the whole answer, ignoring paging.
    package let totalRows: Int
    package let sampled: Bool
    package let sampleShare: Double?
    package let sampleSize: Double?
    package let sampleSpace: Double?
    /// Seconds the data is behind real time.
    package let dataLag: Double?
    /// API totals over the whole filtered set, one per metric.
    package let totals: [Double?]
    /// The metrics and dimensions the API says it answered (what a preset expanded to).
    package let queryMetrics: [String]
    package let queryDimensions: [String]
    /// The currency the answer's money metrics are in (`query.currency`: `RUB`, or the counter's own
    /// when the request named none); nil when the answer does not say.
    package let queryCurrency: String?
    /// The attribution model the answer used (`query.attribution`: `LastSign`,
    /// `CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICK`, …); nil when the answer does not say.
    package let queryAttribution: String?

    enum CodingKeys: String, CodingKey {
        case data
        case totalRows = "total_rows"
        case sampled
        case sampleShare = "sample_share"
        case sampleSize = "sample_size"
        case sampleSpace = "sample_space"
        case dataLag = "data_lag"
        case totals, query
    }

    struct Query: Decodable, Sendable {
        let metrics: [String]?
        let dimensions: [String]?
        let currency: String?
        let attribution: String?

        enum CodingKeys: String, CodingKey { case metrics, dimensions, currency, attribution }

        /// Each member on its own: a currency or attribution of an unexpected type is unknown (nil)
        /// and does not cost the metrics their names.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            metrics = try container.decodeIfPresent([String].self, forKey: .metrics)
            dimensions = try container.decodeIfPresent([String].self, forKey: .dimensions)
            currency = try? container.decodeIfPresent(String.self, forKey: .currency)
            attribution = try? container.decodeIfPresent(String.self, forKey: .attribution)
        }
    }

    init(
        table: StatDataRows, totalRows: Int, sampled: Bool, sampleShare: Double?, sampleSize: Double?,
        sampleSpace: Double?,
        dataLag: Double?, totals: [Double?], queryMetrics: [String], queryDimensions: [String],
        queryCurrency: String? = nil, queryAttribution: String? = nil
    ) {
        self.table = table
        self.totalRows = totalRows
        self.sampled = sampled
        self.sampleShare = sampleShare
        self.sampleSize = sampleSize
        self.sampleSpace = sampleSpace
        self.dataLag = dataLag
        self.totals = totals
        self.queryMetrics = queryMetrics
        self.queryDimensions = queryDimensions
        self.queryCurrency = queryCurrency
        self.queryAttribution = queryAttribution
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let data = try container.decode([WireDataRow].self, forKey: .data)
        var table = StatDataRows()
        for row in data {
            for dimension in row.dimensions {
                table.appendName(dimension.name)
                table.appendID(dimension.id)
            }
            for metric in row.metrics { table.appendMetric(metric.value) }
            table.endRow()
        }
        table.finish()
        self.table = table
        totalRows = try container.flexibleInt(.totalRows) ?? data.count
        sampled = try container.flexibleBool(.sampled) ?? false
        sampleShare = try container.decodeIfPresent(WireNumber.self, forKey: .sampleShare)?.value
        sampleSize = try container.decodeIfPresent(WireNumber.self, forKey: .sampleSize)?.value
        sampleSpace = try container.decodeIfPresent(WireNumber.self, forKey: .sampleSpace)?.value
        dataLag = try container.decodeIfPresent(WireNumber.self, forKey: .dataLag)?.value
        totals = (try container.decodeIfPresent([WireNumber].self, forKey: .totals) ?? []).map(\.value)
        let query = try? container.decodeIfPresent(Query.self, forKey: .query)
        queryMetrics = query?.metrics ?? []
        queryDimensions = query?.dimensions ?? []
        queryCurrency = query?.currency
        queryAttribution = query?.attribution
    }

    /// The rows as plain values: dimension values and one optional number per metric.
    /// Calls `body` with each row in order, without first copying the page into another array
    /// (a 20,000-row page is converted row by row); the metrics are a view of the page's flat
    /// array, and the names point into its name buffer (`SharedText`), so a row costs one array.
    package func forEachRow(_ body: (_ dimensions: [DimensionValue], _ metrics: RowMetricValues) throws -> Void)
        rethrows
    {
        for index in 0..<table.count {
            try body(table.bounds(of: index).dimensions.map(table.dimension(at:)), table.metricValues(of: index))
        }
    }

    package var rows: [(dimensions: [DimensionValue], metrics: [Double?])] {
        (0..<table.count).map { index in
            let bounds = table.bounds(of: index)
            return (bounds.dimensions.map(table.dimension(at:)), Array(table.metricValues(of: index)))
        }
    }

    /// The number of rows in this page.
    package var rowCount: Int { table.count }

    /// Equal pages hold the same rows (the same text, however it is stored) and the same fields.
    package static func == (lhs: StatDataPage, rhs: StatDataPage) -> Bool {
        lhs.totalRows == rhs.totalRows && lhs.sampled == rhs.sampled && lhs.sampleShare == rhs.sampleShare
            && lhs.sampleSize == rhs.sampleSize && lhs.sampleSpace == rhs.sampleSpace && lhs.dataLag == rhs.dataLag
            && lhs.totals == rhs.totals && lhs.queryMetrics == rhs.queryMetrics
            && lhs.queryDimensions == rhs.queryDimensions
            && lhs.queryCurrency == rhs.queryCurrency && lhs.queryAttribution == rhs.queryAttribution
            && lhs.rowCount == rhs.rowCount
            && lhs.rows.elementsEqual(rhs.rows) { $0.dimensions == $1.dimensions && $0.metrics == $1.metrics }
    }

    /// Whether the answer echoed its `query` (real answers without one exist: then the metrics and
    /// dimensions are the ones the request asked for).
    package var hasQueryEcho: Bool { !queryMetrics.isEmpty || !queryDimensions.isEmpty }

    /// A fingerprint of the page's first row's dimension values (nil for an empty page): a page that
    /// starts with the same key as an earlier one holds nothing new (a server that ignores `offset`;
    /// its numbers may still move between requests, so they are not part of the key).
    package var firstRowKey: Int? {
        guard table.count > 0 else { return nil }
        var hasher = Hasher()
        for index in table.bounds(of: 0).dimensions {
            let dimension = table.dimension(at: index)
            hasher.combine(dimension.name)
            hasher.combine(dimension.id)
        }
        return hasher.finalize()
    }

    /// The widths of the rows that differ from `dimensions` dimension values and `metrics` metric
    /// values, as `(dimensions, metrics)` of the first such row; nil when every row fits.
    package func firstMisfit(dimensions: Int, metrics: Int) -> (dimensions: Int, metrics: Int)? {
        for index in 0..<table.count {
            let bounds = table.bounds(of: index)
            if bounds.dimensions.count != dimensions || bounds.metrics.count != metrics {
                return (bounds.dimensions.count, bounds.metrics.count)
            }
        }
        return nil
    }

    /// The sampling of this answer.
    package var sampling: Sampling {
        // A share outside (0, 1] is no share: it would print as 1e310% (or trap the formatter on infinity).
        let share = sampleShare.flatMap { $0 > 0 && $0 <= 1 ? $0 : nil } ?? 1
        return Sampling(isSampled: sampled, share: share, sampleSize: sampleSize, sampleSpace: sampleSpace)
    }
}

/// `GET /stat/v1/data/bytime`, the fields metrika uses: `totals[m][t]` and the periods.
package struct StatByTime: Decodable, Sendable {
    /// Totals per metric per period.
    package let totals: [[Double?]]
    /// The periods `[[start, end], …]`, when the API sends them.
    package let timeIntervals: [[String]]?
    package let sampled: Bool

    enum CodingKeys: String, CodingKey {
        case totals
        case timeIntervals = "time_intervals"
        case sampled
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        totals = (try container.decodeIfPresent([[WireNumber]].self, forKey: .totals) ?? []).map { $0.map(\.value) }
        timeIntervals = try container.decodeIfPresent([[String]].self, forKey: .timeIntervals)
        sampled = try container.flexibleBool(.sampled) ?? false
    }
}

/// The error body shared by all Metrika APIs.
struct WireErrorBody: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        let errorType: String?
        let message: String?
        enum CodingKeys: String, CodingKey {
            case errorType = "error_type"
            case message
        }
    }
    let errors: [Item]?
    let message: String?
}

/// The body of a `/stat/v1/data` answer and where it came from, before it is read
/// (`MetrikaClient.read`).
package struct StatDataAnswer: Sendable {
    let body: Data
    let url: URL
    /// The metrics the request asked for (empty for a preset: its answer names them).
    var metricNames: [String] = []
}

/// `GET /management/v1/counter/{id}/chart_annotations`: `{"chart_annotations": [{"id", "date",
/// "time", "title", "message", "group"}]}`; one without a readable date or title is skipped.
struct AnnotationsResponse: Decodable, Sendable {
    let annotations: [Annotation]

    enum CodingKeys: String, CodingKey { case chartAnnotations = "chart_annotations" }

    struct WireAnnotation: Decodable, Sendable {
        let annotation: Annotation?

        enum CodingKeys: String, CodingKey { case id, date, time, title, message, group }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard let date = try container.flexibleString(.date).flatMap({ Day(iso: String($0.prefix(10))) }),
                let title = try container.flexibleString(.title), !title.isEmpty
            else {
                annotation = nil
                return
            }
            // `10:00:00` → `10:00`; midnight, the API's time of a day-long note, is none.
            let time = try container.flexibleString(.time).map { String($0.prefix(5)) }
            annotation = Annotation(
                id: try container.flexibleInt(.id) ?? 0, day: date, time: time == "00:00" ? nil : time,
                title: title, message: try container.flexibleString(.message) ?? "",
                group: try container.flexibleString(.group) ?? "A")
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        annotations = (try container.decodeIfPresent([WireAnnotation].self, forKey: .chartAnnotations) ?? [])
            .compactMap(\.annotation)
    }
}
