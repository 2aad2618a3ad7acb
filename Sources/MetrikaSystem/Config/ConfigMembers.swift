import Foundation

/// Any member name of a JSON object: the config file's objects are read by name through this, so
/// that a member the file does not know can be named rather than ignored.
struct ConfigMemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension CodingUserInfoKey {
    /// The config file's path, which every `ConfigError` of a member names.
    static let configPath = CodingUserInfoKey(rawValue: "metrika.configPath")!
}

/// One object of the config file as `Decodable` reads it (the top, a profile, `"alerts"`,
/// `"telegram"`): its unknown members refused, and each wrong member's `DecodingError` turned into
/// the `ConfigError` that names the member, its place and what it must be.
struct ConfigMembers {
    let path: String
    let place: ConfigError.Place
    private let container: KeyedDecodingContainer<ConfigMemberKey>

    /// The object `decoder` holds, at `place`, with no member outside `allowed`; `notAnObject` is the
    /// error when it is no object.
    init(
        _ decoder: any Decoder, place: ConfigError.Place, allowed: [String], notAnObject: (String) -> ConfigError
    ) throws {
        let path = decoder.userInfo[.configPath] as? String ?? ""
        guard let container = try? decoder.container(keyedBy: ConfigMemberKey.self) else { throw notAnObject(path) }
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !allowed.contains($0) }) {
            throw ConfigError.unknownMember(path: path, member: unknown, place: place, known: allowed)
        }
        self.path = path
        self.place = place
        self.container = container
    }

    /// The place of the object a decoder is at: in a profile when its coding path passes through
    /// `"profiles"`, else at the top.
    static func place(of decoder: any Decoder) -> ConfigError.Place {
        let path = decoder.codingPath.map(\.stringValue)
        if path.count >= 2, path[0] == "profiles" { return .profile(path[1]) }
        return .top
    }

    func bad(_ member: String, _ expected: String) -> ConfigError {
        .badMember(path: path, member: member, place: place, expected: expected)
    }

    /// The member's value as `T`; nil when absent; `refusal` when it is there but not a `T` (null too).
    func value<T: Decodable>(_ type: T.Type, _ member: String, refusal: @autoclosure () -> ConfigError) throws -> T? {
        let key = ConfigMemberKey(member)
        guard container.contains(key) else { return nil }
        do {
            return try container.decode(T.self, forKey: key)
        } catch let error as ConfigError {
            throw error
        } catch {
            throw refusal()
        }
    }

    /// A text member, trimmed; nil when absent or blank.
    func text(_ member: String) throws -> String? {
        let text = try value(String.self, member, refusal: bad(member, "a string"))
        let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed?.isEmpty == false ? trimmed : nil
    }

    /// One value or a list of them (`1001` or `[1001, 1002]`), as a list.
    func oneOrMany<T: Decodable>(_ type: T.Type, _ member: String, refusal: ConfigError) throws -> [T]? {
        try value(OneOrMany<T>.self, member, refusal: refusal)?.items
    }

    /// A counter id or a list of them, each once; only whole numbers above 0 written as such are ids.
    func counters(_ member: String) throws -> [Int]? {
        let refusal = bad(member, "a counter id or a list of them, like 1001 or [1001, 1002]")
        guard let items = try oneOrMany(Int.self, member, refusal: refusal) else { return nil }
        guard !items.isEmpty, items.allSatisfy({ $0 > 0 }) else { throw refusal }
        var ids: [Int] = []
        for id in items where !ids.contains(id) { ids.append(id) }
        return ids
    }

    /// A member that is an object of its own (`"alerts"`, `"telegram"`): its type's `init(from:)`
    /// throws the member's own errors.
    func object<T: Decodable>(_ type: T.Type, _ member: String) throws -> T? {
        let key = ConfigMemberKey(member)
        guard container.contains(key) else { return nil }
        return try T(from: container.superDecoder(forKey: key))
    }

    /// The names of a member that is an object of named objects (`"profiles"`), sorted, each with
    /// its decoder; `refusal` when the member is not an object.
    func namedObjects(_ member: String, refusal: ConfigError) throws -> [(name: String, decoder: any Decoder)] {
        let key = ConfigMemberKey(member)
        guard container.contains(key) else { return [] }
        guard let objects = try? container.nestedContainer(keyedBy: ConfigMemberKey.self, forKey: key) else {
            throw refusal
        }
        return try objects.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
            (key.stringValue, try objects.superDecoder(forKey: key))
        }
    }
}

/// A member that may be one value or a list of them.
struct OneOrMany<T: Decodable>: Decodable {
    var items: [T]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(T.self) {
            items = [one]
        } else {
            items = try container.decode([T].self)
        }
    }
}

/// Any JSON value, not kept: decoding `[AnyConfigValue]` tells a list from anything else.
struct AnyConfigValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
