import Foundation

/// The history database remembers where `metrika bot` stopped reading its updates (table `bot_offsets`).
extension HistoryStore {
    /// The `getUpdates` offset to ask for next for bot `botID` (the number before the token's colon,
    /// as `getMe` answers it); nil before its first update.
    package func botOffset(botID: Int64) async throws -> Int64? {
        try await withLock { database in
            try database.rows("SELECT next_offset FROM bot_offsets WHERE bot_id = ?", [.integer(botID)]).first?.first?
                .int.map(Int64.init)
        }
    }

    /// Keeps `offset` as bot `botID`'s next; an offset never goes back.
    package func saveBotOffset(_ offset: Int64, botID: Int64, at date: Date) async throws {
        try await withLock { database in
            try database.execute(
                """
                INSERT INTO bot_offsets (bot_id, next_offset, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (bot_id) DO UPDATE SET next_offset = max(next_offset, excluded.next_offset), updated_at = excluded.updated_at
                """,
                [.integer(botID), .integer(offset), .real(date.timeIntervalSince1970)])
        }
    }
}

/// Who holds a bot's lease (table `bot_leases`): one run of `metrika bot`, never the token.
package struct BotLeaseHolder: Sendable, Equatable {
    /// A random id of the run: two runs in one process are two holders.
    package var id: String
    package var pid: Int32
    package var host: String
    /// A long-running bot (`true`) or a `--once` run.
    package var serving: Bool
    /// When it took the lease.
    package var since: Date

    package init(id: String, pid: Int32, host: String, serving: Bool, since: Date) {
        self.id = id
        self.pid = pid
        self.host = host
        self.serving = serving
        self.since = since
    }
}

/// What a claim of an update found.
package enum BotUpdateClaim: Sendable, Equatable {
    /// Claimed for the first time: answer it.
    case new
    /// Claimed before by a run that ended before its answer was recorded: answer it again (at least once).
    case unfinished
    /// Already answered: skip it.
    case answered
}

extension HistoryStore {
    /// Takes bot `botID`'s lease for `holder` until `now + seconds`, unless another holder has it: a
    /// lease is held while it has not expired and, on this host, its process lives (`isAlive`; a
    /// killed bot's lease is free at once). Returns nil when taken, else who holds it.
    package func takeBotLease(
        botID: Int64, holder: BotLeaseHolder, now: Date, seconds: Double,
        isAlive: @escaping @Sendable (Int32) -> Bool
    ) async throws -> BotLeaseHolder? {
        try await withLock { database in
            try database.inTransaction {
                let row = try database.rows(
                    "SELECT holder, pid, host, serving, since, expires_at FROM bot_leases WHERE bot_id = ?",
                    [.integer(botID)]
                ).first
                if let row, let id = row[0].string, id != holder.id, let pid = row[1].int, let host = row[2].string,
                    let expires = row[5].double, expires > now.timeIntervalSince1970,
                    host != holder.host || isAlive(Int32(pid))
                {
                    return BotLeaseHolder(
                        id: id, pid: Int32(pid), host: host, serving: row[3].int == 1,
                        since: Date(timeIntervalSince1970: row[4].double ?? 0))
                }
                try database.execute(
                    """
                    INSERT OR REPLACE INTO bot_leases (bot_id, holder, pid, host, serving, since, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .integer(botID), .text(holder.id), .integer(Int64(holder.pid)), .text(holder.host),
                        .integer(holder.serving ? 1 : 0), .real(holder.since.timeIntervalSince1970),
                        .real(now.addingTimeInterval(seconds).timeIntervalSince1970)
                    ])
                return nil
            }
        }
    }

    /// Gives bot `botID`'s lease up, if `holderID` still has it.
    package func releaseBotLease(botID: Int64, holderID: String) async throws {
        try await withLock { database in
            try database.execute(
                "DELETE FROM bot_leases WHERE bot_id = ? AND holder = ?", [.integer(botID), .text(holderID)])
        }
    }

    /// Claims update `updateID` of bot `botID` for `holderID` before it is answered.
    package func claimBotUpdate(botID: Int64, updateID: Int64, holderID: String, at date: Date) async throws
        -> BotUpdateClaim
    {
        try await withLock { database in
            try database.inTransaction {
                let row = try database.rows(
                    "SELECT answered_at FROM bot_updates WHERE bot_id = ? AND update_id = ?",
                    [.integer(botID), .integer(updateID)]
                ).first
                if let row, row[0] != .null { return .answered }
                try database.execute(
                    """
                    INSERT INTO bot_updates (bot_id, update_id, holder, claimed_at, attempts) VALUES (?, ?, ?, ?, 1)
                    ON CONFLICT (bot_id, update_id) DO UPDATE SET holder = excluded.holder,
                        claimed_at = excluded.claimed_at, attempts = attempts + 1
                    """,
                    [.integer(botID), .integer(updateID), .text(holderID), .real(date.timeIntervalSince1970)])
                return row == nil ? .new : .unfinished
            }
        }
    }

    /// Records update `updateID` answered (or left unanswered on purpose) and moves the offset past
    /// it, in one transaction; answered updates older than a day are forgotten (Telegram keeps an
    /// unconfirmed update 24 hours).
    package func finishBotUpdate(botID: Int64, updateID: Int64, at date: Date) async throws {
        try await withLock { database in
            try database.inTransaction {
                try database.execute(
                    "UPDATE bot_updates SET answered_at = ? WHERE bot_id = ? AND update_id = ?",
                    [.real(date.timeIntervalSince1970), .integer(botID), .integer(updateID)])
                try database.execute(
                    """
                    INSERT INTO bot_offsets (bot_id, next_offset, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (bot_id) DO UPDATE SET next_offset = max(next_offset, excluded.next_offset),
                        updated_at = excluded.updated_at
                    """,
                    [.integer(botID), .integer(updateID + 1), .real(date.timeIntervalSince1970)])
                try database.execute(
                    "DELETE FROM bot_updates WHERE bot_id = ? AND answered_at IS NOT NULL AND answered_at < ?",
                    [.integer(botID), .real(date.timeIntervalSince1970 - 86_400)])
            }
        }
    }
}
