import Foundation

/// The config file's `"alerts"` member: what `metrika alert` checks and how sure it must be, e.g.
///
///     "alerts": {"metrics": ["visits", "pageviews"], "goals": true, "min_change": 40,
///                "min_score": 4, "weeks": 6, "skip": [1002]}
///
/// Every member is optional (the defaults need no file); unknown members and values out of range are
/// refused naming the member, like the rest of the file (`init(from:)`). Metric names are checked
/// where they are used.
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
}

extension AlertsConfig: Decodable {
    /// The member as the file gives it; a wrong one is refused naming it, like the rest of the file.
    package init(from decoder: any Decoder) throws {
        let members = try ConfigMembers(decoder, place: .alerts, allowed: Self.keys) {
            .badMember(path: $0, member: "alerts", place: .top, expected: "an object such as {\"min_change\": 40}")
        }
        self.init()
        let names = members.bad("metrics", "a non-empty list of metric names such as [\"visits\"]")
        if let metrics = try members.value([String].self, "metrics", refusal: names) {
            guard !metrics.isEmpty, metrics.allSatisfy({ !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
                throw names
            }
            self.metrics = metrics
        }
        goals = try members.value(Flag.self, "goals", refusal: members.bad("goals", "true or false"))?.value
        shop = try members.value(Flag.self, "shop", refusal: members.bad("shop", "true or false"))?.value
        minimumChange = try Self.number("min_change", in: 5...95, members)
        minimumScore = try Self.number("min_score", in: 2...20, members)
        if let weeks = try Self.number("weeks", in: 4...12, members) {
            guard weeks == weeks.rounded() else { throw members.bad("weeks", "a whole number from 4 to 12") }
            self.weeks = Int(weeks)
        }
        let ids = members.bad("skip", "a counter id or a list of them, like [1002]")
        if let skip = try members.oneOrMany(Int.self, "skip", refusal: ids) {
            guard skip.allSatisfy({ $0 > 0 }) else { throw ids }
            self.skip = skip
        }
    }

    private static func number(
        _ name: String, in range: ClosedRange<Double>, _ members: ConfigMembers
    ) throws -> Double? {
        let refusal = members.bad(name, "a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
        guard let number = try members.value(Double.self, name, refusal: refusal) else { return nil }
        guard range.contains(number) else { throw refusal }
        return number
    }

    /// `true` or `false`, or (as the file always took them) `1` or `0`.
    private struct Flag: Decodable {
        var value: Bool

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                value = flag
                return
            }
            let number = try container.decode(Int.self)
            guard number == 0 || number == 1 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "neither true nor false")
            }
            value = number == 1
        }
    }
}
