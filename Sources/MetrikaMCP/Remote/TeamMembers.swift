import Dispatch
import Foundation
import MetrikaModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One member of a team served by `metrika mcp --listen`: a name, the counters it may read (nil:
/// all the server's), and hashes only — of its bearer token, of a pending OAuth approval code, of its
/// OAuth refresh tokens. `id` is new with each `token add`, so tokens of a revoked member never
/// come back with a member of the same name.
package struct TeamMember: Codable, Sendable, Equatable {
    package var name: String
    package var id: String
    package var counters: [Int]?
    package var created: Date
    package var lastUsed: Date?
    /// SHA-256 (hex) of the bearer token `token add` printed; nil for an OAuth-only member.
    package var tokenHash: String?
    /// The one-time approval code of `token add --oauth`.
    package var approval: Approval?
    /// The OAuth refresh tokens in use (each rotates: used once, then replaced).
    package var refreshTokens: [RefreshToken]
    /// The OAuth access tokens alive (an hour each), kept here so they outlive a restart of the server;
    /// nil in a file written before they were kept.
    package var accessTokens: [AccessToken]?

    package struct Approval: Codable, Sendable, Equatable {
        package var hash: String
        package var expires: Date

        package init(hash: String, expires: Date) {
            self.hash = hash
            self.expires = expires
        }
    }

    package struct RefreshToken: Codable, Sendable, Equatable {
        package var hash: String
        package var clientID: String
        package var resource: String
        package var expires: Date
    }

    package struct AccessToken: Codable, Sendable, Equatable {
        package var hash: String
        package var clientID: String
        package var resource: String
        package var expires: Date
    }

    package init(
        name: String, id: String, counters: [Int]?, created: Date, lastUsed: Date? = nil, tokenHash: String?,
        approval: Approval?, refreshTokens: [RefreshToken] = []
    ) {
        self.name = name
        self.id = id
        self.counters = counters
        self.created = created
        self.lastUsed = lastUsed
        self.tokenHash = tokenHash
        self.approval = approval
        self.refreshTokens = refreshTokens
    }

    enum CodingKeys: String, CodingKey {
        case name, id, counters, created, approval
        case lastUsed = "last_used"
        case tokenHash = "token_sha256"
        case refreshTokens = "refresh_tokens"
        case accessTokens = "access_tokens"
    }

    /// Whether the member may read `counter`.
    package func mayRead(_ counter: Int) -> Bool { counters?.contains(counter) ?? true }
}

/// The file of a team's members, `$XDG_CONFIG_HOME/metrika/mcp-members.json`, mode 0600: written
/// by `metrika mcp token …` and the running server (last use, OAuth refresh tokens), each change whole
/// under an exclusive lock, replaced atomically; the server reads it again whenever it changed, so a
/// revoked member's tokens stop working at its next request.
package final class TeamMembersFile: Sendable {
    package let path: String
    private struct Cache {
        var stamp: [Int] = []
        var members: [TeamMember] = []
    }
    private let cache = Mutex(Cache())
    /// Where the server's reads and changes run: blocking file I/O (a `stat` per request, a read when the
    /// file changed, an `fsync` per change) never holds a thread of the cooperative pool.
    let queue = DispatchQueue(label: "metrika mcp members file")

    package init(path: String) { self.path = path }

    /// The file in the directory of the config file.
    package static func path(configDirectory: String) -> String { configDirectory + "/mcp-members.json" }

    /// Every member, read again when the file changed since the last read (a `stat` per call).
    package func members() throws -> [TeamMember] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw TeamFileError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let stamp = [
            Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)
        ]
        if let cached = cache.withLock({ $0.stamp == stamp ? $0.members : nil }) { return cached }
        let members = try read()
        cache.withLock { $0 = Cache(stamp: stamp, members: members) }
        return members
    }

    /// `members()` on the file's own queue, off the cooperative pool (the running server's way).
    package func current() async throws -> [TeamMember] {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.members() }) }
        }
    }

    /// `members()` on the file's own queue, waited for on the calling thread: for a thread of the
    /// HTTP library's own, never a task of the cooperative pool.
    package func currentHere() throws -> [TeamMember] {
        try queue.sync { try self.members() }
    }

    /// `update(_:)` on the file's own queue, off the cooperative pool (the running server's way).
    package func change<T: Sendable>(_ change: @escaping @Sendable (inout [TeamMember]) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.update(change) }) }
        }
    }

    /// Changes the members under the file's lock: `change` sees the file as it is now, its result is
    /// written (mode 0600) unless it throws.
    @discardableResult
    package func update<T>(_ change: (inout [TeamMember]) throws -> T) throws -> T {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let lock = open(path + ".lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw TeamFileError("cannot lock \(path): \(String(cString: strerror(errno)))") }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            if errno != EINTR { throw TeamFileError("cannot lock \(path): \(String(cString: strerror(errno)))") }
        }
        var members = FileManager.default.fileExists(atPath: path) ? try read() : []
        let result = try change(&members)
        try write(members)
        return result
    }

    private func read() throws -> [TeamMember] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TeamFileError("cannot read \(path)")
        }
        do {
            return try Self.decoder.decode(Document.self, from: data).members
        } catch {
            throw TeamFileError("\(path) is not a members file metrika wrote (remove it to start again)")
        }
    }

    private func write(_ members: [TeamMember]) throws {
        let data = try Self.encoder.encode(Document(version: 1, members: members))
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TeamFileError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw TeamFileError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    private struct Document: Codable {
        var version: Int
        var members: [TeamMember]
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

/// The members file could not be read or written (exit 78: a configuration problem).
package struct TeamFileError: MetrikaFailure {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var exitCode: Int32 { ExitCode.config }
}
