/// Shows a token without revealing it: at most its first 4 and last 2 characters and its length,
/// so a user can tell two tokens apart while a screenshot or a log still gives nothing away.
package enum TokenMask {
    /// Tokens shorter than this show no characters at all (4 + 2 of a short token is most of it).
    package static let shortestShown = 16

    /// `y0_A…Xk (58 characters)`, or `(hidden, 10 characters)` for a short token.
    package static func mask(_ token: String) -> String {
        let count = token.count
        guard count >= shortestShown else { return "(hidden, \(count) character\(count == 1 ? "" : "s"))" }
        return "\(token.prefix(4))…\(token.suffix(2)) (\(count) characters)"
    }
}
