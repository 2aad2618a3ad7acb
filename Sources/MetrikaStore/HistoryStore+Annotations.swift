import Foundation
import MetrikaModel

/// A counter's chart annotations as last read (tables `counter_annotations`, `counter_annotations_read`):
/// what chart, alert, explain, the bot and the MCP tools show beside a change, read again only when
/// the kept set is older than the caller's window, and shown as kept offline.
extension HistoryStore {
    /// The counter's kept annotations (in the API's order) and when the set was last read whole; nil
    /// when nothing is kept. `readAt` is nil when the kept ones were only written by this machine.
    package func storedAnnotations(counterID: Int) async throws -> (annotations: [Annotation], readAt: Date?)? {
        try await withLock { database in
            let read = try database.scalar(
                "SELECT read_at FROM counter_annotations_read WHERE counter_id = ?", [.int(counterID)])?.double
            let notes = try database.rows(
                """
                SELECT annotation_id, day, time, title, message, annotation_group FROM counter_annotations
                WHERE counter_id = ? ORDER BY position
                """, [.int(counterID)]
            )
            .compactMap { row -> Annotation? in
                guard let id = row[0].int, let day = row[1].string.flatMap(Day.init(iso:)) else { return nil }
                return Annotation(
                    id: id, day: day, time: row[2].string, title: row[3].string ?? "", message: row[4].string ?? "",
                    group: row[5].string ?? "A")
            }
            guard read != nil || !notes.isEmpty else { return nil }
            return (notes, read.map { Date(timeIntervalSince1970: $0) })
        }
    }

    /// Replaces the counter's kept annotations with `annotations`, the whole set read at `readAt`, in
    /// one transaction (an annotation deleted in Metrika is gone from the history too).
    package func storeAnnotations(counterID: Int, _ annotations: [Annotation], readAt: Date) async throws {
        try await withLock { database in
            try database.inTransaction {
                try database.execute("DELETE FROM counter_annotations WHERE counter_id = ?", [.int(counterID)])
                for (position, note) in annotations.enumerated() {
                    try Self.insertAnnotation(note, counterID: counterID, position: position, in: database)
                }
                try database.execute(
                    "INSERT OR REPLACE INTO counter_annotations_read (counter_id, read_at) VALUES (?, ?)",
                    [.int(counterID), .real(readAt.timeIntervalSince1970)])
            }
        }
    }

    /// Adds one annotation this machine wrote (`metrika annotate`) to the counter's kept set, last,
    /// replacing a kept one of the same id; the set's read time is left as it was.
    package func keepWrittenAnnotation(counterID: Int, _ note: Annotation) async throws {
        try await withLock { database in
            try database.inTransaction {
                if note.id != 0 {
                    try database.execute(
                        "DELETE FROM counter_annotations WHERE counter_id = ? AND annotation_id = ?",
                        [.int(counterID), .int(note.id)])
                }
                let next =
                    try database.scalar(
                        "SELECT coalesce(max(position) + 1, 0) FROM counter_annotations WHERE counter_id = ?",
                        [.int(counterID)])?.int ?? 0
                try Self.insertAnnotation(note, counterID: counterID, position: next, in: database)
            }
        }
    }

    private static func insertAnnotation(_ note: Annotation, counterID: Int, position: Int, in database: Database)
        throws
    {
        try database.execute(
            """
            INSERT INTO counter_annotations (counter_id, position, annotation_id, day, time, title, message, annotation_group)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .int(counterID), .int(position), .int(note.id), .text(note.day.iso),
                note.time.map { .text($0) } ?? .null,
                .text(note.title), .text(note.message), .text(note.group)
            ])
    }
}
