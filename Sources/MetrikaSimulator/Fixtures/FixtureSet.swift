import Foundation

/// Why a fixture directory could not be loaded.
package struct FixtureError: Error, CustomStringConvertible, Sendable {
    package let file: String
    package let reason: String
    package var description: String { "fixture \(file): \(reason)" }
}

/// A goal defined on a counter.
struct GoalFixture: Sendable {
    let id: Int
    /// The goal object as the Management API returns it.
    let document: JSONValue
    /// Share of visits that reach the goal, in percent (simulator-only; not served).
    let conversionPercent: Double
    /// When set, reaches are a Poisson count with this mean a day (times the weekly shape) instead of
    /// a share of visits: a small goal (2 a day) is 0 on some days, as real small counts are.
    var perDay: Double? = nil
    /// Runs of days on which the goal is never reached (a broken goal).
    var outages: [DayRun] = []
    /// Revenue of one reach, in roubles (simulator-only `revenue_per_reach`; not served); 0 without.
    var priceRoubles: Double = 0
}

/// A run of days `from...to` (`to` nil: to the end of time), in the counter's time zone.
struct DayRun: Sendable {
    let from: Day
    let to: Day?
    func contains(_ day: Day) -> Bool { day >= from && (to.map { day <= $0 } ?? true) }
}

/// Days on which a counter's visits are multiplied (a bot wave: 2.5; traffic halved: 0.5).
struct TrafficWave: Sendable {
    let days: DayRun
    let factor: Double
}

/// One counter with the simulator-only facts that drive its generated statistics.
struct CounterFixture: Sendable {
    let id: Int
    /// The full counter object as the Management API returns it.
    let document: JSONValue
    let name: String
    let site: String
    let isDeleted: Bool
    let permission: String
    /// The counter's `owner_login`.
    var ownerLogin: String { document["owner_login"]?.stringValue ?? "demo-user" }
    let timeZone: TimeZone
    /// The local date the counter was created on; no statistics before it.
    let createDay: Day
    /// Typical visits on a weekday at the start of the counter's life.
    let traffic: Double
    let goals: [GoalFixture]
    /// Days with no visits at all (the API omits their rows).
    let zeroDays: Set<Day>
    /// How many distinct search phrases the counter's visitors use.
    let searchPhraseCount: Int
    /// A Monday-first weekly shape replacing the model's (`[1,1,1,1,1,0.3,0.3]`: quiet weekends).
    var weekly: [Double]? = nil
    /// Chart annotations (`GET …/chart_annotations`), each as the API writes it: id, date, time,
    /// title, message, group (those `POST`ed while the simulator runs are in its state).
    var annotations: [JSONValue] = []
    /// Runs of days with no visits at all (tracking code removed), goals included.
    var outages: [DayRun] = []
    /// Runs of days whose visits are multiplied.
    var waves: [TrafficWave] = []
    /// The currency the counter keeps revenue in (`query.currency` when a request names none).
    var currency: String = "RUB"
    /// A shop: purchases per 100 visits; nil for a counter without e-commerce (no purchases).
    var purchasePercent: Double? = nil
    /// A shop's typical order, in roubles.
    var averageOrder: Double = 0
    /// A shop whose purchases and orders vary little from day to day (±10 %, ±5 %) instead of a small
    /// shop's days that swing from a third to one and a half of the usual.
    var steadyShop = false
    /// Runs of days whose orders are worth this factor of the usual (a discount bug: purchases go on,
    /// revenue falls).
    var orderWaves: [TrafficWave] = []
    /// The local day and hour from which the counter records nothing at all (`stops_at`: the tracking
    /// code fell off the site mid-day and stays off); nil: it never stops.
    var stopsAt: HourStop? = nil
    /// Runs of days on which one value of one dimension has its visits multiplied (`segment_waves`).
    var segmentWaves: [SegmentWave] = []
    /// Rates that move on some days (`rate_waves`), of every visit or of one segment.
    var rateWaves: [RateWave] = []
    /// No day-to-day noise in the rates (`steady_rates`): an explanation's known answer is exact.
    var steadyRates = false
    /// How much a report's segments' users exceed the day's (`user_overlap`: 0.25 is a quarter of the
    /// users counted in two segments); nil: each dimension's usual overlap.
    var userOverlap: Double? = nil
}

/// A local day and hour: from the start of that hour on, nothing is recorded.
struct HourStop: Sendable {
    let day: Day
    let hour: Int

    /// Whether the hour `hour` of `day` is at or after the stop.
    func covers(_ day: Day, hour: Int) -> Bool {
        day > self.day || (day == self.day && hour >= self.hour)
    }
}

/// Who an API token belongs to and what it can read.
struct TokenFixture: Sendable {
    let token: String
    let login: String
    /// nil = every counter in the fixture set.
    let counters: Set<Int>?
    let excluded: Set<Int>
    let revoked: Bool
    /// `"counters": "owned"`: the login's own counters (`owner_login`) and its guest grants, each
    /// served with the login's permission (`own`, or the grant's `view`/`edit`); false: the fixture's
    /// `permission` as it is (one login, as before).
    var ownsCounters = false
    /// Guest grants of an owning login: counter id → `view` or `edit`.
    var grants: [Int: String] = [:]
    /// The accounts the login represents (`GET /management/v1/accounts`, `ulogin=`).
    var represents: [String] = []

    /// The permission the login has on `counter`, as the counters list says it.
    func permission(on counter: CounterFixture) -> String {
        guard ownsCounters else { return counter.permission }
        if counter.ownerLogin == login { return "own" }
        return grants[counter.id] ?? "view"
    }

    func canRead(_ counterID: Int) -> Bool {
        guard !excluded.contains(counterID) else { return false }
        return counters?.contains(counterID) ?? true
    }
}

/// An OAuth application registered with the simulated Yandex OAuth.
struct ClientFixture: Sendable {
    let clientID: String
    let clientSecret: String
}

/// Everything loaded from a fixture directory (`counters.json`, `tokens.json`).
struct FixtureSet: Sendable {
    let counters: [CounterFixture]
    private let indexByID: [Int: Int]
    let tokens: [String: TokenFixture]
    let clients: [String: ClientFixture]
    /// The token whose access tokens issued through OAuth copy.
    let issuedTokenTemplate: TokenFixture

    func counter(_ id: Int) -> CounterFixture? {
        indexByID[id].map { counters[$0] }
    }

    /// Loads `counters.json` and `tokens.json` from `directory`.
    static func load(from directory: URL, now: Date) throws -> FixtureSet {
        let countersDocument = try readDocument(directory.appendingPathComponent("counters.json"))
        let tokensDocument = try readDocument(directory.appendingPathComponent("tokens.json"))

        var counters: [CounterFixture] = []
        for entry in countersDocument["counters"]?.arrayValue ?? [] {
            counters.append(try counterFixture(entry, now: now))
        }
        for generator in countersDocument["generate"]?.arrayValue ?? [] {
            counters.append(contentsOf: try generatedCounters(generator, now: now))
        }
        var indexByID: [Int: Int] = [:]
        for (index, counter) in counters.enumerated() {
            guard indexByID[counter.id] == nil else {
                throw FixtureError(file: "counters.json", reason: "duplicate counter id \(counter.id)")
            }
            indexByID[counter.id] = index
        }

        var tokens: [String: TokenFixture] = [:]
        for entry in tokensDocument["tokens"]?.arrayValue ?? [] {
            let token = try tokenFixture(entry, counters: counters)
            tokens[token.token] = token
        }
        var clients: [String: ClientFixture] = [:]
        for entry in tokensDocument["clients"]?.arrayValue ?? [] {
            guard let id = entry["client_id"]?.stringValue, let secret = entry["client_secret"]?.stringValue else {
                throw FixtureError(file: "tokens.json", reason: "a client needs client_id and client_secret")
            }
            clients[id] = ClientFixture(clientID: id, clientSecret: secret)
        }
        let templateName = tokensDocument["issued_tokens_like"]?.stringValue ?? "demo-token"
        guard let template = tokens[templateName] else {
            throw FixtureError(file: "tokens.json", reason: "issued_tokens_like names unknown token \(templateName)")
        }
        return FixtureSet(
            counters: counters, indexByID: indexByID, tokens: tokens, clients: clients, issuedTokenTemplate: template)
    }

    // MARK: - Reading entries

    private static func readDocument(_ url: URL) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FixtureError(file: url.path, reason: "cannot read the file")
        }
        do {
            return try JSONValue.parse(Array(data))
        } catch {
            throw FixtureError(file: url.path, reason: "\(error)")
        }
    }

    private static func tokenFixture(_ entry: JSONValue, counters all: [CounterFixture]) throws -> TokenFixture {
        guard let token = entry["token"]?.stringValue, !token.isEmpty else {
            throw FixtureError(file: "tokens.json", reason: "a token entry needs \"token\"")
        }
        let login = entry["login"]?.stringValue ?? "demo-user"
        var grants: [Int: String] = [:]
        for grant in entry["grants"]?.arrayValue ?? [] {
            // {"ids": [1, 2] or "first_id": N, "count": M, "perm": "view"}
            let perm = grant["perm"]?.stringValue ?? "view"
            var ids = (grant["ids"]?.arrayValue ?? []).compactMap(\.intValue)
            if let first = grant["first_id"]?.intValue, let count = grant["count"]?.intValue, count > 0 {
                ids += Array(first..<(first + count))
            }
            for id in ids { grants[id] = perm }
        }
        let counters: Set<Int>?
        var owns = false
        switch entry["counters"] {
        case .string("all")?, nil: counters = nil
        case .string("owned")?:
            owns = true
            counters = Set(all.filter { $0.ownerLogin == login }.map(\.id)).union(grants.keys)
        case .array(let ids)?: counters = Set(ids.compactMap(\.intValue))
        default:
            throw FixtureError(
                file: "tokens.json", reason: "counters of \(token) must be \"all\", \"owned\" or a list of ids")
        }
        var fixture = TokenFixture(
            token: token,
            login: login,
            counters: counters,
            excluded: Set((entry["except"]?.arrayValue ?? []).compactMap(\.intValue)),
            revoked: entry["revoked"]?.boolValue ?? false)
        fixture.ownsCounters = owns
        fixture.grants = grants
        fixture.represents = (entry["represents"]?.arrayValue ?? []).compactMap(\.stringValue)
        return fixture
    }

    /// What a login sees when a representative acts for it (`ulogin=LOGIN`): the counters it owns and
    /// the grants of its own tokens, as an owning login.
    func acting(as login: String) -> TokenFixture {
        let own = tokens.values.first { $0.login == login && $0.ownsCounters && !$0.revoked }
        var grants = own?.grants ?? [:]
        if own == nil { grants = [:] }
        let ids = Set(counters.filter { $0.ownerLogin == login }.map(\.id)).union(grants.keys)
        var fixture = TokenFixture(
            token: "", login: login, counters: ids, excluded: [], revoked: false)
        fixture.ownsCounters = true
        fixture.grants = grants
        fixture.represents = own?.represents ?? []
        return fixture
    }

    private static func generatedCounters(_ generator: JSONValue, now: Date) throws -> [CounterFixture] {
        guard let count = generator["count"]?.intValue, count >= 0,
            let firstID = generator["first_id"]?.intValue,
            case .object(let template)? = generator["counter"]
        else {
            throw FixtureError(
                file: "counters.json", reason: "a generator needs count, first_id and a counter template")
        }
        var result: [CounterFixture] = []
        result.reserveCapacity(count)
        for n in stride(from: 1, through: count, by: 1) {
            let id = firstID + n - 1
            var pairs: [(String, JSONValue)] = [("id", .int(id))]
            for (key, value) in template where key != "id" {
                if case .string(let text) = value {
                    let filled = text.replacingOccurrences(of: "{n}", with: String(n))
                        .replacingOccurrences(of: "{id}", with: String(id))
                    pairs.append((key, .string(filled)))
                } else {
                    pairs.append((key, value))
                }
            }
            let entry = generator.setting("counter", to: .object(pairs))
            result.append(try counterFixture(entry, now: now))
        }
        return result
    }

    private static func counterFixture(_ entry: JSONValue, now: Date) throws -> CounterFixture {
        guard case .object(let given)? = entry["counter"], let id = entry["counter"]?["id"]?.intValue else {
            throw FixtureError(file: "counters.json", reason: "each entry needs a \"counter\" object with an id")
        }
        let counter = JSONValue.object(given)
        guard let site = counter["site"]?.stringValue, let createTime = counter["create_time"]?.stringValue,
            let createDay = Day(createTime.prefix(10))
        else {
            throw FixtureError(file: "counters.json", reason: "counter \(id) needs site and create_time")
        }
        let zoneName = counter["time_zone_name"]?.stringValue ?? "Europe/Moscow"
        guard let zone = TimeZone(identifier: zoneName) else {
            throw FixtureError(file: "counters.json", reason: "counter \(id) has unknown time zone \(zoneName)")
        }
        let traffic = entry["traffic"]?.doubleValue ?? 100
        let status = counter["status"]?.stringValue ?? "Active"
        let permission = counter["permission"]?.stringValue ?? "own"
        let name = counter["name"]?.stringValue ?? site

        // Fill every field the documented example has, in its order; extra fixture keys follow.
        let defaults: [(String, JSONValue)] = [
            ("id", .int(id)),
            ("status", .string(status)),
            ("owner_login", .string("demo-user")),
            ("code_status", .string("CS_OK")),
            ("activity_status", .string(traffic >= 10_000 ? "high" : traffic >= 500 ? "medium" : "low")),
            ("name", .string(name)),
            ("type", .string("simple")),
            ("favorite", .int(0)),
            ("hide_address", .int(0)),
            ("pro", .int(0)),
            ("permission", .string(permission)),
            (
                "webvisor",
                .object([
                    ("arch_enabled", .int(0)), ("arch_type", .string("none")), ("load_player_type", .string("proxy")),
                    ("wv_version", .int(2)), ("allow_wv2", .bool(true)), ("notify_wv2", .bool(false)),
                    ("wv_forms", .int(1))
                ])
            ),
            (
                "code_options",
                .object([
                    ("async", .int(1)), ("visor", .int(0)), ("track_hash", .int(0)), ("clickmap", .int(1)),
                    ("ecommerce", .int(0)), ("ecommerce_object", .string("dataLayer")), ("ytm", .bool(false))
                ])
            ),
            ("create_time", .string(createTime)),
            ("time_zone_name", .string(zoneName)),
            ("time_zone_offset", .int(zone.secondsFromGMT(for: now) / 60)),
            ("partner_id", .int(0)),
            ("site", .string(site)),
            ("site2", .object([("site", .string(site)), ("domain", .string(site))])),
            ("gdpr_agreement_accepted", .int(0)),
            ("delete_guest_allowed", .int(1))
        ]
        var pairs: [(String, JSONValue)] = defaults.map { key, value in (key, counter[key] ?? value) }
        for (key, value) in given where !defaults.contains(where: { $0.0 == key }) {
            pairs.append((key, value))
        }

        var goals: [GoalFixture] = []
        for goal in entry["goals"]?.arrayValue ?? [] {
            guard case .object(let goalPairs) = goal, let goalID = goal["id"]?.intValue else {
                throw FixtureError(file: "counters.json", reason: "a goal of counter \(id) has no id")
            }
            var fixture = GoalFixture(
                id: goalID,
                document: .object(
                    goalPairs.filter {
                        !["conversion_percent", "per_day", "outages", "revenue_per_reach"].contains($0.0)
                    }),
                conversionPercent: goal["conversion_percent"]?.doubleValue ?? 2.5)
            fixture.perDay = goal["per_day"]?.doubleValue
            fixture.priceRoubles = goal["revenue_per_reach"]?.doubleValue ?? 0
            fixture.outages = try dayRuns(goal["outages"], counter: id, zone: zone, now: now)
            goals.append(fixture)
        }
        var zeroDays: Set<Day> = []
        for value in entry["zero_days"]?.arrayValue ?? [] {
            guard let text = value.stringValue, let day = Day(text) else {
                throw FixtureError(file: "counters.json", reason: "bad zero_days entry in counter \(id)")
            }
            zeroDays.insert(day)
        }
        let phraseDefault = max(50, min(2_000, Int(traffic)))
        var weekly: [Double]?
        if let shape = entry["weekly"]?.arrayValue {
            let numbers = shape.compactMap(\.doubleValue)
            guard numbers.count == 7, numbers.allSatisfy({ $0 >= 0 }) else {
                throw FixtureError(
                    file: "counters.json", reason: "weekly of counter \(id) must be 7 numbers, Monday first")
            }
            weekly = numbers
        }
        var waves: [TrafficWave] = []
        for wave in entry["waves"]?.arrayValue ?? [] {
            guard let factor = wave["factor"]?.doubleValue, factor >= 0,
                let run = try dayRuns(.array([wave]), counter: id, zone: zone, now: now).first
            else {
                throw FixtureError(file: "counters.json", reason: "a wave of counter \(id) needs from and factor")
            }
            waves.append(TrafficWave(days: run, factor: factor))
        }
        var fixture = CounterFixture(
            id: id,
            document: .object(pairs),
            name: name,
            site: site,
            isDeleted: status.lowercased() == "deleted",
            permission: permission,
            timeZone: zone,
            createDay: createDay,
            traffic: traffic,
            goals: goals,
            zeroDays: zeroDays,
            searchPhraseCount: entry["search_phrases"]?.intValue ?? phraseDefault)
        fixture.weekly = weekly
        fixture.waves = waves
        for (index, note) in (entry["annotations"]?.arrayValue ?? []).enumerated() {
            guard let date = note["date"]?.stringValue, Day(date) != nil, let title = note["title"]?.stringValue,
                !title.isEmpty
            else {
                throw FixtureError(
                    file: "counters.json", reason: "an annotation of counter \(id) needs date (YYYY-MM-DD) and title")
            }
            let group: String = note["group"]?.stringValue ?? "A"
            let time: JSONValue = note["time"] ?? .string("00:00:00")
            let message: JSONValue = note["message"] ?? .string("")
            var members: [(String, JSONValue)] = [("id", .int(id * 100 + index + 1)), ("date", .string(date))]
            members.append(("time", time))
            members.append(("title", .string(title)))
            members.append(("message", message))
            members.append(("group", .string(group)))
            fixture.annotations.append(.object(members))
        }
        fixture.outages = try dayRuns(entry["outages"], counter: id, zone: zone, now: now)
        fixture.currency = entry["currency"]?.stringValue ?? "RUB"
        if let stop = entry["stops_at"] {
            guard let hour = stop["hour"]?.intValue, (0...23).contains(hour),
                let run = try dayRuns(
                    .array([.object([("from", stop["day"] ?? .null)])]), counter: id, zone: zone, now: now
                ).first
            else {
                throw FixtureError(
                    file: "counters.json",
                    reason: "stops_at of counter \(id) needs day (a date or NdaysAgo) and hour (0-23)")
            }
            fixture.stopsAt = HourStop(day: run.from, hour: hour)
        }
        fixture.segmentWaves = try segmentWaves(entry["segment_waves"], counter: id, zone: zone, now: now)
        fixture.rateWaves = try rateWaves(entry["rate_waves"], counter: id, zone: zone, now: now)
        fixture.steadyRates = entry["steady_rates"]?.boolValue ?? false
        if let overlap = entry["user_overlap"] {
            guard let share = overlap.doubleValue, share >= 0 else {
                throw FixtureError(file: "counters.json", reason: "user_overlap of counter \(id) must be a number ≥ 0")
            }
            fixture.userOverlap = share
        }
        if let shop = entry["shop"] {
            fixture.purchasePercent = shop["purchase_percent"]?.doubleValue ?? 2
            fixture.averageOrder = shop["average_order"]?.doubleValue ?? 2_500
            fixture.steadyShop = shop["steady"]?.boolValue ?? false
            for wave in shop["order_waves"]?.arrayValue ?? [] {
                guard let factor = wave["factor"]?.doubleValue, factor >= 0,
                    let run = try dayRuns(.array([wave]), counter: id, zone: zone, now: now).first
                else {
                    throw FixtureError(
                        file: "counters.json", reason: "an order wave of counter \(id) needs from and factor")
                }
                fixture.orderWaves.append(TrafficWave(days: run, factor: factor))
            }
        }
        return fixture
    }

    /// `[{"from": "2026-11-28", "to": "2026-11-29"}, {"from": "2daysAgo"}]`: runs of days, each end a
    /// date or `NdaysAgo` (relative to the simulator's clock in the counter's time zone, so a demo
    /// fixture shows the same situation on any day).
    static func dayRuns(_ value: JSONValue?, counter id: Int, zone: TimeZone, now: Date) throws -> [DayRun] {
        guard let value else { return [] }
        guard let items = value.arrayValue else {
            throw FixtureError(file: "counters.json", reason: "outages of counter \(id) must be a list of {from, to}")
        }
        let today = Day(epochSeconds: now.timeIntervalSince1970, offsetSeconds: zone.secondsFromGMT(for: now))
        func day(_ text: String?) throws -> Day? {
            guard let text else { return nil }
            if let day = Day(text) { return day }
            if text.hasSuffix("daysAgo"), let count = Int(text.dropLast(7)) { return Day(number: today.number - count) }
            throw FixtureError(file: "counters.json", reason: "counter \(id): '\(text)' is not a date or NdaysAgo")
        }
        return try items.map { item in
            guard let from = try day(item["from"]?.stringValue) else {
                throw FixtureError(file: "counters.json", reason: "a run of days of counter \(id) needs from")
            }
            return DayRun(from: from, to: try day(item["to"]?.stringValue))
        }
    }
}
