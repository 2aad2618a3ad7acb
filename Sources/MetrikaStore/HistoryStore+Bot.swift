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
