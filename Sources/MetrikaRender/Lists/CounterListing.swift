import Foundation
import MetrikaModel

/// The counters list as `metrika counters` and MCP's `list_counters` show it: one table, one CSV
/// row and one JSON object per counter, so the two entry points cannot drift apart.
package enum CounterListing {
    /// A counter and the currency its revenue is kept in, when the history has seen it.
    package struct Item: Sendable {
        package var counter: Counter
        package var currency: String?

        package init(counter: Counter, currency: String? = nil) {
            self.counter = counter
            self.currency = currency
        }
    }

    /// The table's columns: the command's (id, name, site, status, permission), or with the time zone
    /// and the currency instead of the status (an assistant's: what it needs to ask for a report).
    package enum Columns: Sendable {
        case standard
        case withZoneAndCurrency
    }

    /// What an empty list says.
    package static let emptyText = "No counters found."

    package static func table(_ items: [Item], columns: Columns = .standard) -> TextTable {
        switch columns {
        case .standard:
            // A run over several profiles says which one reads each counter.
            let profiles = items.contains { $0.counter.profile != nil }
            var table = TextTable(
                columns: [
                    .init("ID", alignment: .right), .init("Name"), .init("Site"), .init("Status"), .init("Permission")
                ] + (profiles ? [.init("Profile")] : []))
            for item in items {
                let counter = item.counter
                table.append(
                    [String(counter.id), counter.displayName, counter.site, counter.status, counter.permission]
                        + (profiles ? [counter.profile ?? ""] : []))
            }
            return table
        case .withZoneAndCurrency:
            var table = TextTable(columns: [
                .init("ID", alignment: .right), .init("Name"), .init("Site"), .init("Time zone"), .init("Currency"),
                .init("Permission")
            ])
            for item in items {
                let counter = item.counter
                table.append([
                    String(counter.id), counter.displayName, counter.site, counter.timeZoneName, item.currency ?? "",
                    counter.permission
                ])
            }
            return table
        }
    }

    package static let csvHeader = ["id", "name", "site", "status", "permission", "owner_login", "time_zone"]

    /// The header of `items`: with a `profile` column when a run over several profiles read them.
    package static func csvHeader(_ items: [Item]) -> [String] {
        items.contains { $0.counter.profile != nil } ? csvHeader + ["profile"] : csvHeader
    }

    package static func csvRow(_ item: Item) -> [String] {
        let counter = item.counter
        return [
            String(counter.id), counter.name, counter.site, counter.status, counter.permission, counter.ownerLogin,
            counter.timeZoneName
        ] + (counter.profile.map { [$0] } ?? [])
    }

    /// One counter's JSON object, the same members for every entry point (docs/json.md, docs/mcp.md).
    package static func json(_ item: Item) -> JSONValue {
        let counter = item.counter
        let members: [(String, JSONValue)] = [
            ("id", .number(Double(counter.id))),
            ("name", .string(counter.name)),
            ("site", .string(counter.site)),
            ("status", .string(counter.status)),
            ("permission", .string(counter.permission)),
            ("owner_login", .string(counter.ownerLogin)),
            ("time_zone", .string(counter.timeZoneName)),
            ("currency", .string(item.currency))
        ]
        // A run over several profiles says which one reads the counter.
        return .object(members + (counter.profile.map { [("profile", JSONValue.string($0))] } ?? []))
    }

    /// `metrika counters --json`: `{"version": 1, "counters": [...]}`.
    package static func document(_ items: [Item]) -> JSONValue {
        .object([("version", .number(1)), ("counters", .array(items.map(json)))])
    }
}

/// A counter's goals as `metrika goals` and MCP's `list_goals` show them.
package enum GoalListing {
    package static func emptyText(counterID: Int) -> String { "Counter \(counterID) has no goals." }

    package static func table(_ goals: [Goal]) -> TextTable {
        var table = TextTable(columns: [.init("ID", alignment: .right), .init("Name"), .init("Type")])
        for goal in goals { table.append([String(goal.id), goal.name, goal.type]) }
        return table
    }

    package static let csvHeader = ["id", "name", "type"]

    package static func csvRow(_ goal: Goal) -> [String] { [String(goal.id), goal.name, goal.type] }

    package static func json(_ goal: Goal) -> JSONValue {
        .object([("id", .number(Double(goal.id))), ("name", .string(goal.name)), ("type", .string(goal.type))])
    }

    /// `{"counter_id": ID, "goals": [...]}`, with `"version": 1` first for the command's `--json`.
    package static func document(counterID: Int, goals: [Goal], versioned: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = versioned ? [("version", .number(1))] : []
        members.append(("counter_id", .number(Double(counterID))))
        members.append(("goals", .array(goals.map(json))))
        return .object(members)
    }
}
