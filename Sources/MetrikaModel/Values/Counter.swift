/// A Metrika counter (a tag on one site) as metrika uses it.
public struct Counter: Hashable, Sendable {
    public var id: Int
    public var name: String
    public var site: String
    public var status: String
    public var permission: String
    public var ownerLogin: String
    /// IANA time zone name, e.g. `Europe/Moscow`; the counter's statistics are in this zone.
    public var timeZoneName: String
    /// Minutes east of GMT, as the Management API reports it.
    public var timeZoneOffsetMinutes: Int
    /// ISO 8601 creation time with offset, if known.
    public var createTime: String?
    public var isFavorite: Bool

    public init(
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
    public var displayName: String {
        if !name.trimmingSpaces.isEmpty { return name }
        return site.isEmpty ? "(no name)" : "(no name) \(site)"
    }
}
