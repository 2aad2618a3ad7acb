import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The outbox (table `outbox`): every message written before it is sent, marked delivered after the
/// channel accepted it. Messages to one recipient go in the order they were queued; a run leases the
/// ones it sends, so two runs never send the same message at once, and a lease dies with its process.
extension HistoryStore {
    /// How long a lease holds while its process lives (a send is bounded far below it).
    package static let outboxLease: TimeInterval = 15 * 60

    private static let outboxColumns =
        "id, batch, channel, route, recipient, kind, body, file_name, caption, episodes, created_at, state, attempts, next_attempt_at, last_error, lease_pid, lease_until"

    private static func outboxMessage(_ row: [SQLiteValue]) -> OutboxMessage? {
        guard let id = row[0].int, let batch = row[1].string,
            let channel = row[2].string.flatMap(OutboxMessage.Channel.init(rawValue:)),
            let route = row[3].string, let recipient = row[4].string, let kind = row[5].string,
            let body = row[6].string.flatMap({ Data(base64Encoded: $0) }), let created = row[10].double,
            let state = row[11].string.flatMap(OutboxMessage.State.init(rawValue:)), let next = row[13].double
        else { return nil }
        return OutboxMessage(
            id: id, batch: batch, channel: channel, route: route, recipient: recipient, kind: kind, body: body,
            fileName: row[7].string, caption: row[8].string, episodes: episodeIDs(row[9].string ?? ""),
            createdAt: Date(timeIntervalSince1970: created), state: state, attempts: row[12].int ?? 0,
            nextAttemptAt: Date(timeIntervalSince1970: next), lastError: row[14].string)
    }

    private static func episodeIDs(_ text: String) -> [Int] {
        text.split(separator: ",").compactMap { Int($0) }
    }

    /// Writes `messages` as pending, inside the caller's transaction; returns them with their ids.
    static func insertOutbox(_ messages: [OutboxMessage], _ database: Database) throws -> [OutboxMessage] {
        try messages.map { message in
            try database.execute(
                """
                INSERT INTO outbox (batch, channel, route, recipient, kind, body, file_name, caption, episodes, created_at, state, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)
                """,
                [
                    .text(message.batch), .text(message.channel.rawValue), .text(message.route),
                    .text(message.recipient), .text(message.kind), .text(message.body.base64EncodedString()),
                    message.fileName.map { .text($0) } ?? .null, message.caption.map { .text($0) } ?? .null,
                    .text(message.episodes.map(String.init).joined(separator: ",")),
                    .real(message.createdAt.timeIntervalSince1970), .real(message.nextAttemptAt.timeIntervalSince1970)
                ])
            var queued = message
            queued.id = try database.scalar("SELECT last_insert_rowid()")?.int
            queued.state = .pending
            return queued
        }
    }

    /// Queues `messages` (a digest's) in one transaction; returns them with their ids.
    @discardableResult
    package func queueOutbox(_ messages: [OutboxMessage]) async throws -> [OutboxMessage] {
        guard !messages.isEmpty else { return [] }
        return try await withLock { database in
            try database.inTransaction { try Self.insertOutbox(messages, database) }
        }
    }

    /// Every message of `batch`, in order (a digest's resume reads what is left of it).
    package func outboxBatch(_ batch: String) async throws -> [OutboxMessage] {
        try await withLock { database in
            try database.rows("SELECT \(Self.outboxColumns) FROM outbox WHERE batch = ? ORDER BY id", [.text(batch)])
                .compactMap(Self.outboxMessage)
        }
    }

    /// Leases the pending messages of `routes` (channel, route) that this run may send now, in ONE
    /// write transaction: per recipient, all of its pending messages in order when its first one is
    /// due (`next_attempt_at` ≤ `now`) and none is leased by another live process (a lease whose
    /// process is gone, or that ran out, is void). Returns them in the order queued.
    package func leaseOutbox(routes: [(channel: OutboxMessage.Channel, route: String)], now: Date) async throws
        -> [OutboxMessage]
    {
        guard !routes.isEmpty else { return [] }
        let pid = Int(getpid())
        let wanted = Set(routes.map { "\($0.channel.rawValue)\u{1}\($0.route)" })
        return try await withLock { database in
            try database.inTransaction {
                let rows = try database.rows(
                    "SELECT \(Self.outboxColumns) FROM outbox WHERE state = 'pending' ORDER BY id")
                var groups: [OutboxAddress: [OutboxMessage]] = [:]
                var order: [OutboxAddress] = []
                var blocked = Set<OutboxAddress>()
                for row in rows {
                    guard let message = Self.outboxMessage(row),
                        wanted.contains("\(message.channel.rawValue)\u{1}\(message.route)")
                    else { continue }
                    let address = message.address
                    if let leasePID = row[15].int, let until = row[16].double,
                        until > now.timeIntervalSince1970, Self.isAlive(pid: leasePID)
                    {
                        blocked.insert(address)
                    }
                    if groups[address] == nil { order.append(address) }
                    groups[address, default: []].append(message)
                }
                var leased: [OutboxMessage] = []
                for address in order where !blocked.contains(address) {
                    guard let group = groups[address], let first = group.first, first.nextAttemptAt <= now else {
                        continue
                    }
                    leased += group
                }
                let until = now.addingTimeInterval(Self.outboxLease).timeIntervalSince1970
                for message in leased {
                    try database.execute(
                        "UPDATE outbox SET lease_pid = ?, lease_until = ? WHERE id = ?",
                        [.int(pid), .real(until), .int(message.id ?? 0)])
                }
                return leased.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
            }
        }
    }

    /// Whether process `pid` lives (on this machine: the outbox is one machine's history database).
    static func isAlive(pid: Int) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid_t(pid), 0) == 0 || errno == EPERM
    }

    /// Records what became of message `id` and lets its lease go. A failure past `giveUpAfter` since it
    /// was queued is expired instead (returns `.expired` then; else the state written).
    @discardableResult
    package func settleOutbox(id: Int, _ settlement: OutboxSettlement, now: Date, giveUpAfter: TimeInterval)
        async throws -> OutboxMessage.State
    {
        try await withLock { database in
            switch settlement {
            case .delivered:
                try database.execute(
                    "UPDATE outbox SET state = 'delivered', delivered_at = ?, lease_pid = NULL, lease_until = NULL WHERE id = ?",
                    [.real(now.timeIntervalSince1970), .int(id)])
                return .delivered
            case .refused(let error):
                try database.execute(
                    "UPDATE outbox SET state = 'refused', last_error = ?1, first_error = coalesce(first_error, ?1), attempts = attempts + 1, lease_pid = NULL, lease_until = NULL WHERE id = ?",
                    [.text(error), .int(id)])
                return .refused
            case .failed(let error, let retryAt):
                let created = try database.scalar("SELECT created_at FROM outbox WHERE id = ?", [.int(id)])?.double ?? 0
                let expired = now.timeIntervalSince1970 - created >= giveUpAfter
                try database.execute(
                    "UPDATE outbox SET state = ?1, last_error = ?2, first_error = coalesce(first_error, ?2), attempts = attempts + 1, next_attempt_at = ?3, lease_pid = NULL, lease_until = NULL WHERE id = ?4",
                    [
                        .text(expired ? "expired" : "pending"), .text(error), .real(retryAt.timeIntervalSince1970),
                        .int(id)
                    ])
                return expired ? .expired : .pending
            case .untried:
                try database.execute(
                    "UPDATE outbox SET lease_pid = NULL, lease_until = NULL WHERE id = ?", [.int(id)])
                return .pending
            }
        }
    }

    /// The pending messages by recipient (oldest first): what is still to be delivered.
    package func pendingOutbox() async throws -> [OutboxPending] {
        try await withLock { database in
            let rows = try database.rows(
                "SELECT channel, route, recipient, created_at, last_error, episodes FROM outbox WHERE state = 'pending' ORDER BY id"
            )
            var result: [OutboxPending] = []
            for row in rows {
                guard let channel = row[0].string.flatMap(OutboxMessage.Channel.init(rawValue:)),
                    let route = row[1].string, let recipient = row[2].string, let created = row[3].double
                else { continue }
                let address = OutboxAddress(channel: channel, route: route, recipient: recipient)
                let episodes = Set(Self.episodeIDs(row[5].string ?? ""))
                if let index = result.firstIndex(where: { $0.address == address }) {
                    result[index].count += 1
                    result[index].episodes.formUnion(episodes)
                    if let error = row[4].string { result[index].lastError = error }
                } else {
                    result.append(
                        OutboxPending(
                            address: address, count: 1, oldest: Date(timeIntervalSince1970: created),
                            lastError: row[4].string, episodes: episodes))
                }
            }
            return result
        }
    }

    /// Every pending message, oldest first, as `alert --status --json` lists it: where it goes, what
    /// it is, how often it was tried, when it is tried next, and its first and last errors.
    package func pendingOutboxMessages() async throws -> [OutboxWaiting] {
        try await withLock { database in
            try database.rows(
                """
                SELECT channel, recipient, kind, attempts, next_attempt_at, first_error, last_error, created_at, episodes
                FROM outbox WHERE state = 'pending' ORDER BY id
                """
            ).compactMap { row -> OutboxWaiting? in
                guard let channel = row[0].string.flatMap(OutboxMessage.Channel.init(rawValue:)),
                    let recipient = row[1].string, let kind = row[2].string, let next = row[4].double,
                    let created = row[7].double
                else { return nil }
                return OutboxWaiting(
                    channel: channel, recipient: recipient, kind: kind, attempts: row[3].int ?? 0,
                    nextAttemptAt: Date(timeIntervalSince1970: next), firstError: row[5].string ?? row[6].string,
                    lastError: row[6].string, queuedAt: Date(timeIntervalSince1970: created),
                    episodes: Self.episodeIDs(row[8].string ?? ""))
            }
        }
    }

    /// Forgets delivered, refused and expired messages queued before `date` (kept a while for `--status`).
    package func pruneOutbox(before date: Date) async throws {
        try await withLock { database in
            try database.execute(
                "DELETE FROM outbox WHERE state <> 'pending' AND created_at < ?", [.real(date.timeIntervalSince1970)])
        }
    }
}
