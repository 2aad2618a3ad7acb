import Foundation
import MetrikaAPI
import MetrikaModel

/// The helper tables metrika leaves in a ClickHouse database for a resume (`…__staging_<counter>_
/// <from>_<to>`, with its `__part<N>` and `__swap`), found by that name pattern in `system.tables`,
/// whatever run or table made them: what `logs --clean-all` drops with the requests they belonged to.
package enum ClickHouseStagingTables {
    /// The pattern of a helper table of `counterID` (re2, as ClickHouse's `match` reads it).
    static func pattern(counterID: Int) -> String {
        "^[A-Za-z0-9_]+__staging_\(counterID)_[0-9]{8}_[0-9]{8}(__part[0-9]+|__swap)?$"
    }

    /// Whether `name` is such a table of `counterID` (checked again here: a name read back from the
    /// server goes into a statement unquoted).
    static func isHelper(_ name: String, counterID: Int) -> Bool {
        name.range(of: pattern(counterID: counterID), options: .regularExpression) != nil
            && ClickHouseSettings.isIdentifier(name)
    }

    /// Drops every helper table of `counterID` in `settings.database`; returns their names.
    package static func drop(counterID: Int, settings: ClickHouseSettings, transport: any StreamingHTTPTransport)
        async throws -> [String]
    {
        let client = ClickHouseClient(settings: settings, transport: transport)
        let database = settings.database
        let names = try await client.rows(
            "SELECT name FROM system.tables WHERE database = \(ClickHouseClient.quote(database)) AND match(name, \(ClickHouseClient.quote(pattern(counterID: counterID)))) ORDER BY name",
            doing: "finding the staging tables of counter \(counterID)"
        ).compactMap(\.first).filter { isHelper($0, counterID: counterID) }
        for name in names {
            try await client.execute("DROP TABLE IF EXISTS \(database).\(name)", doing: "dropping \(name)")
        }
        return names
    }
}
