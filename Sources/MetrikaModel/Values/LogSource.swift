import Foundation

/// Which rows a log request exports.
public enum LogSource: String, Sendable, CaseIterable {
    case visits, hits

    /// The field prefix: `ym:s:` for visits, `ym:pv:` for hits.
    public var prefix: String { self == .visits ? "ym:s:" : "ym:pv:" }
    /// The row id field (`visitID` / `watchID`), part of every request metrika makes.
    public var idField: String { prefix + (self == .visits ? "visitID" : "watchID") }
    /// Fields every request carries because the warehouse's key needs them.
    public var requiredFields: [String] { [prefix + "counterID", prefix + "date", idField] }

    /// The fields `metrika logs` asks for without `--fields`: ids, time, client, URL, traffic source,
    /// region, device, goals.
    public var defaultFields: [String] {
        switch self {
        case .visits:
            return ["visitID", "counterID", "date", "dateTime", "clientID", "isNewUser", "pageViews", "visitDuration", "bounce",
                    "startURL", "referer", "lastTrafficSource", "UTMSource", "UTMMedium", "UTMCampaign", "regionCountry",
                    "regionCity", "deviceCategory", "browser", "goalsID"].map { prefix + $0 }
        case .hits:
            return ["watchID", "counterID", "date", "dateTime", "clientID", "URL", "title", "referer", "isPageView",
                    "UTMSource", "regionCountry", "regionCity", "deviceCategory", "browser", "goalsID"].map { prefix + $0 }
        }
    }
}
