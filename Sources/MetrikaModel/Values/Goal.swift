/// A goal of a counter (Management API `/management/v1/counter/{id}/goals`): what `metrika goals`
/// lists and what names the `goal<ID>reaches` columns of reports. The name is server text.
package struct Goal: Hashable, Sendable {
    /// The goal's id, as in `ym:s:goal<ID>reaches`.
    package let id: Int
    /// The name its owner gave it (may be empty).
    package let name: String
    /// `url`, `action`, `number`, `step`, `phone`, … as the API says.
    package let type: String

    package init(id: Int, name: String, type: String) {
        self.id = id
        self.name = name
        self.type = type
    }
}

extension Metric {
    /// The goal this metric counts (`ym:s:goal4001reaches` → 4001), or nil for other metrics.
    package var goalID: Int? {
        let tail = apiName.split(separator: ":").last.map(String.init) ?? apiName
        guard tail.hasPrefix("goal") else { return nil }
        let digits = tail.dropFirst(4).prefix(while: { $0.isASCII && $0.isNumber })
        let suffix = tail.dropFirst(4 + digits.count)
        let revenue = suffix.hasPrefix("converted") && suffix.hasSuffix("Revenue")
        guard !digits.isEmpty, suffix == "reaches" || suffix == "conversionRate" || revenue else { return nil }
        return Int(digits)
    }

    /// This goal metric titled with the goal's name — `Заказ оформлен — reaches`, `… — conversion` —
    /// for table headers and JSON `title`; its API and CSV names stay the same. Other metrics, and a
    /// goal without a name, come back unchanged.
    package func titled(byGoalNames names: [Int: String]) -> Metric {
        guard let id = goalID, let name = names[id]?.trimmingSpaces, !name.isEmpty else { return self }
        let what = apiName.hasSuffix("conversionRate") ? "conversion" : unit == .money ? "revenue" : "reaches"
        return retitled("\(name) — \(what)")
    }
}
