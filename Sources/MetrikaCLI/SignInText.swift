import Foundation
import MetrikaAPI

/// How `login` and `auth status` show a stored sign-in: expiry dates and aligned `name: value` lines.
enum SignInText {
    /// `2027-06-15 (in 365 days)`, `expired on 2026-05-01`, or `unknown`.
    static func expiry(_ date: Date?, now: Date) -> String {
        guard let date else { return "unknown" }
        let left = date.timeIntervalSince(now)
        if left <= 0 { return "expired on \(StoredToken.day(date))" }
        let days = Int((left / 86_400).rounded(.up))
        return "\(StoredToken.day(date)) (in \(days) day\(days == 1 ? "" : "s"))"
    }

    /// `  Name:  value` lines with the values in one column, two spaces after the longest name.
    static func aligned(_ rows: [(String, String)]) -> String {
        let width = (rows.map { $0.0.count }.max() ?? 0) + 3
        return rows.map { "  " + $0.0 + ":" + String(repeating: " ", count: width - $0.0.count - 1) + $0.1 + "\n" }
            .joined()
    }
}
