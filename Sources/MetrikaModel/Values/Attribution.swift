/// An attribution model of the Reporting API's `attribution` parameter: which of a visitor's visits
/// a conversion or purchase is credited to in reports by source (`ym:s:<attribution>TrafficSource`).
///
/// The current models (Yandex's Reporting API parametrization page, 2026) are `automatic`,
/// `cross_device_first`, `cross_device_last_significant` and `last`; `cross_device_last` is still
/// listed in the English reference. Since June 2026 the API answers the older models with their
/// nearest current one (`first` → `cross_device_first`, `lastsign` → `cross_device_last_significant`,
/// `last_yandex_direct_click` and `cross_device_last_yandex_direct_click` → `automatic`), so metrika
/// asks for that one directly and says so (docs/reports.md, "Attribution").
package struct Attribution: Hashable, Sendable, CustomStringConvertible {
    /// The parameter value sent: `cross_device_last_significant`.
    package let apiValue: String
    /// The model the user named when it is an older one that was mapped (`lastsign`); nil otherwise.
    package let replaced: String?

    /// The models the API answers as themselves.
    package static let current = [
        "automatic", "cross_device_first", "cross_device_last_significant", "cross_device_last", "last"
    ]

    /// The older models and the current ones the API answers them with since June 2026.
    package static let replacements: [(old: String, new: String)] = [
        ("first", "cross_device_first"),
        ("lastsign", "cross_device_last_significant"),
        ("last_yandex_direct_click", "automatic"),
        ("cross_device_last_yandex_direct_click", "automatic")
    ]

    /// What a user typed (any case, `-` or `_`); nil for a name the API does not know.
    package init?(_ text: String) {
        let name = text.trimmingSpaces.lowercased().map { $0 == "-" ? "_" : $0 }.reduce(into: "") { $0.append($1) }
        if Self.current.contains(name) {
            apiValue = name
            replaced = nil
        } else if let mapping = Self.replacements.first(where: { $0.old == name }) {
            apiValue = mapping.new
            replaced = name
        } else {
            return nil
        }
    }

    package var description: String { apiValue }

    /// The names `--attribution` accepts, for help and errors.
    package static var accepted: [String] { current + replacements.map(\.old) }
}
