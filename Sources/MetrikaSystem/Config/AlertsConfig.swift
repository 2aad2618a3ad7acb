import Foundation

/// The config file's `"alerts"` member: what `metrika alert` checks and how sure it must be, e.g.
///
///     "alerts": {"metrics": ["visits", "pageviews"], "goals": true, "min_change": 40,
///                "min_score": 4, "weeks": 6, "skip": [1002]}
///
/// Every member is optional (the defaults need no file); unknown members and values out of range are
/// refused naming the member, like the rest of the file. Metric names are checked where they are used.
package struct AlertsConfig: Sendable, Equatable {
    /// Metric names (counts: visits, pageviews, users, …, and revenue); default visits.
    package var metrics: [String]?
    /// Whether every goal's reaches are checked (default true).
    package var goals: Bool?
    /// Whether a shop's purchases and revenue are checked (default true).
    package var shop: Bool?
    /// The least relative change that counts, in percent (5 to 95; default 40).
    package var minimumChange: Double?
    /// The least robust score that counts (2 to 20; default 4).
    package var minimumScore: Double?
    /// Same-weekday weeks in the baseline (4 to 12; default 6).
    package var weeks: Int?
    /// Counters never checked.
    package var skip: [Int]?

    package init() {}

    static let keys = ["metrics", "goals", "shop", "min_change", "min_score", "weeks", "skip"]

    /// Reads the member (nil when absent); `member` makes the file's error naming the problem.
    static func parse(_ value: Any?, member: ConfigFile.Members) throws -> AlertsConfig? {
        guard let value else { return nil }
        guard let object = value as? [String: Any] else { throw member.bad("alerts", .top, "an object such as {\"min_change\": 40}") }
        try member.checkKeys(object, allowed: keys, place: .alerts)
        var config = AlertsConfig()
        if let metrics = object["metrics"] {
            guard let names = metrics as? [String], !names.isEmpty, names.allSatisfy({ !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
                throw member.bad("metrics", .alerts, "a non-empty list of metric names such as [\"visits\"]")
            }
            config.metrics = names
        }
        if let goals = object["goals"] {
            guard let flag = goals as? Bool, ["true", "false", "1", "0"].contains("\(goals)") else { throw member.bad("goals", .alerts, "true or false") }
            config.goals = flag
        }
        if let shop = object["shop"] {
            guard let flag = shop as? Bool, ["true", "false", "1", "0"].contains("\(shop)") else { throw member.bad("shop", .alerts, "true or false") }
            config.shop = flag
        }
        config.minimumChange = try number(object["min_change"], "min_change", in: 5...95, member: member)
        config.minimumScore = try number(object["min_score"], "min_score", in: 2...20, member: member)
        if let weeks = try number(object["weeks"], "weeks", in: 4...12, member: member) {
            guard weeks == weeks.rounded() else { throw member.bad("weeks", .alerts, "a whole number from 4 to 12") }
            config.weeks = Int(weeks)
        }
        if let skip = object["skip"] {
            let items = (skip as? [Any]) ?? [skip]
            var ids: [Int] = []
            for item in items {
                guard let number = item as? NSNumber, !(item is Bool), "\(number)".allSatisfy(\.isNumber), let id = Int(exactly: number.doubleValue), id > 0 else {
                    throw member.bad("skip", .alerts, "a counter id or a list of them, like [1002]")
                }
                ids.append(id)
            }
            config.skip = ids
        }
        return config
    }

    private static func number(_ value: Any?, _ name: String, in range: ClosedRange<Double>, member: ConfigFile.Members) throws -> Double? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, !(value is Bool), range.contains(number.doubleValue) else {
            throw member.bad(name, .alerts, "a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
        }
        return number.doubleValue
    }
}
