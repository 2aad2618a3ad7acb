import Foundation

/// Which rows a log request exports.
package enum LogSource: String, Sendable, CaseIterable {
    case visits, hits

    /// The field prefix: `ym:s:` for visits, `ym:pv:` for hits.
    package var prefix: String { self == .visits ? "ym:s:" : "ym:pv:" }
    /// The row id field (`visitID` / `watchID`), part of every request metrika makes.
    package var idField: String { prefix + (self == .visits ? "visitID" : "watchID") }
    /// Fields every request carries because the warehouse's key needs them.
    package var requiredFields: [String] { [prefix + "counterID", prefix + "date", idField] }

    /// The fields `metrika logs` asks for without `--fields`: ids, time, client, URL, traffic source,
    /// region, device, goals.
    package var defaultFields: [String] {
        switch self {
        case .visits:
            return [
                "visitID", "counterID", "date", "dateTime", "clientID", "isNewUser", "pageViews", "visitDuration",
                "bounce",
                "startURL", "referer", "lastTrafficSource", "UTMSource", "UTMMedium", "UTMCampaign", "regionCountry",
                "regionCity", "deviceCategory", "browser", "goalsID"
            ].map { prefix + $0 }
        case .hits:
            return [
                "watchID", "counterID", "date", "dateTime", "clientID", "URL", "title", "referer", "isPageView",
                "UTMSource", "regionCountry", "regionCity", "deviceCategory", "browser", "goalsID"
            ].map { prefix + $0 }
        }
    }
}
