import Foundation
import MetrikaModel

/// Column names and types of the ClickHouse tables `metrika logs` fills (metrika-api.md §6).
package enum ClickHouseSchema {
    /// `ym:s:visitID` → `visit_id`, `ym:s:UTMSource` → `utm_source`, `ym:pv:URL` → `url`: the field
    /// without its prefix, in snake_case (a run of capitals is one word).
    package static func columnName(_ field: String) -> String {
        let bare = field.split(separator: ":").last.map(String.init) ?? field
        let characters = Array(bare)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { result += "_" }
            }
            result += character.lowercased()
        }
        return result
    }

    static let types: [String: String] = [
        "visitID": "UInt64", "watchID": "UInt64", "clientID": "UInt64",
        "counterID": "UInt32", "visitDuration": "UInt32", "regionCountryID": "UInt32", "regionCityID": "UInt32",
        "pageViews": "Int32",
        "isNewUser": "UInt8", "bounce": "UInt8", "hasGCLID": "UInt8", "cookieEnabled": "UInt8",
        "javascriptEnabled": "UInt8",
        "link": "UInt8", "download": "UInt8", "notBounce": "UInt8", "isPageView": "UInt8", "artificial": "UInt8",
        "iFrame": "UInt8",
        "screenWidth": "UInt16", "screenHeight": "UInt16", "browserMajorVersion": "UInt16",
        "clientTimeZone": "Int16",
        "date": "Date", "dateTime": "DateTime", "dateTimeUTC": "DateTime",
        "goalsID": "Array(UInt32)",
        "goalsDateTime": "Array(DateTime)", "purchaseDateTime": "Array(DateTime)",
        "goalsOrder": "Array(String)", "purchaseID": "Array(String)", "productsName": "Array(String)",
        "productsID": "Array(String)",
        "productsBrand": "Array(String)", "productsCategory": "Array(String)", "purchaseCoupon": "Array(String)",
        "purchaseRevenue": "Array(Float64)", "productsPrice": "Array(Float64)",
        "goalsPrice": "Array(Int64)", "purchaseProductQuantity": "Array(Int64)"
    ]

    /// The ClickHouse type of a Logs API field; String for fields it does not know.
    package static func columnType(_ field: String) -> String {
        let bare = field.split(separator: ":").last.map(String.init) ?? field
        return types[bare] ?? "String"
    }

    /// `CREATE TABLE IF NOT EXISTS` for `fields` (which include counterID, date and the id): a
    /// MergeTree with one partition per counter and day (a re-loaded day replaces its partition whole,
    /// see `ClickHouseDestination`), ordered by (counter_id, date, id). SQL both 18.16 and current
    /// releases accept.
    package static func createTable(_ table: String, fields: [String], source: LogSource) -> String {
        let columns = fields.map { "    \(columnName($0)) \(columnType($0))" }.joined(separator: ",\n")
        let id = columnName(source.idField)
        return
            "CREATE TABLE IF NOT EXISTS \(table) (\n\(columns)\n) ENGINE = MergeTree() PARTITION BY (counter_id, date) ORDER BY (counter_id, date, \(id))"
    }
}
