/// A Metrika counter (a tag on one site) as metrika uses it.
package struct Counter: Hashable, Sendable {
    package var id: Int
    package var name: String
    package var site: String
    package var status: String
    package var permission: String
    package var ownerLogin: String
    /// IANA time zone name, e.g. `Europe/Moscow`; the counter's statistics are in this zone.
    package var timeZoneName: String
    /// Minutes east of GMT, as the Management API reports it.
    package var timeZoneOffsetMinutes: Int
    /// ISO 8601 creation time with offset, if known.
    package var createTime: String?
    package var isFavorite: Bool
    /// The profile that reads it, in a run over several profiles (`--profile all`); nil otherwise.
    package var profile: String? = nil

    package init(
        id: Int, name: String, site: String, status: String = "Active", permission: String = "own",
        ownerLogin: String = "", timeZoneName: String = "Europe/Moscow", timeZoneOffsetMinutes: Int = 180,
        createTime: String? = nil, isFavorite: Bool = false
    ) {
        self.id = id
        self.name = name
        self.site = site
        self.status = status
        self.permission = permission
        self.ownerLogin = ownerLogin
        self.timeZoneName = timeZoneName
        self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
        self.createTime = createTime
        self.isFavorite = isFavorite
    }

    /// The name people read: the counter's name, or for a counter without one (the API omits `name`
    /// for counters created without it) its site, marked: `(no name) site.ru`.
    package var displayName: String {
        if !name.trimmingSpaces.isEmpty { return name }
        return site.isEmpty ? "(no name)" : "(no name) \(site)"
    }
}
