import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore

/// The owner's chart annotations beside a change (issue 48): read once per counter, never fatal.
package enum AnnotationText {
    /// `annotation on Sun 2026-11-29: "Новый шаблон сайта"` (the title made safe for a terminal).
    package static func line(_ note: Annotation) -> String {
        "annotation on \(AlertText.dayText(note.day)): \"\(TerminalText.sanitize(note.title, limit: 255))\""
    }

    /// `{"date", "time", "title", "message", "group"}`: one annotation in a JSON answer (the webhook's
    /// alerts; `time` null for the whole day).
    package static func json(_ note: Annotation) -> JSONValue {
        .object([
            ("date", .string(note.day.iso)), ("time", note.time.map(JSONValue.string) ?? .null),
            ("title", .string(note.title)), ("message", .string(note.message)), ("group", .string(note.group))
        ])
    }

    /// `document` (a JSON object) with an `annotations` member appended, each item with its
    /// `counter_id`: explain's JSON and MCP's get_report and explain_change. Unchanged when there are
    /// none, so an answer without one reads as before.
    package static func adding(_ notes: [(counterID: Int, note: Annotation)], to document: JSONValue) -> JSONValue {
        guard !notes.isEmpty, case .object(var members) = document else { return document }
        let items: [JSONValue] = notes.map { id, note in
            guard case .object(let fields) = json(note) else { return json(note) }
            return .object([("counter_id", .number(Double(id)))] + fields)
        }
        members.append(("annotations", .array(items)))
        return .object(members)
    }

    /// explain's CSV rows of annotations, after its tables: `annotation`, the title, the day (and
    /// time), the number columns empty (`columns` in all).
    package static func csvRows(_ notes: [Annotation], columns: Int) -> [[String]] {
        notes.map { note in
            let when = note.day.iso + (note.time.map { " " + $0 } ?? "")
            return ["annotation", note.title, when] + Array(repeating: "", count: max(columns - 3, 0))
        }
    }

    /// The counter's annotations on the days `days` holds, in the API's order (`HistoryLoader.annotations`);
    /// a failure when they could not be read and none are kept (the caller goes on without them and
    /// says so only when asked to).
    package static func annotations(
        counterID: Int, on days: ClosedRange<Day>, loader: HistoryLoader
    ) async -> Result<[Annotation], any Error> {
        await loader.annotations(counterID: counterID).map { all in all.filter { days.contains($0.day) } }
    }

    /// Writes one annotation to the counter (`MetrikaClient.createAnnotation`: sent once, by the
    /// profile that reads the counter, within the quota ledger) and keeps it in the history (`store`,
    /// opened once it is written) at once, so the next chart, alert or explanation shows it without
    /// reading the set again. Returns it as the API stored it, and the failure to keep it (a full
    /// disk), if any: it was written all the same.
    package static func write(
        _ note: Annotation, counterID: Int, client: MetrikaClient, store: () async throws -> HistoryStore
    ) async throws -> (written: Annotation, unkept: (any Error)?) {
        let written = try await client.createAnnotation(counterID: counterID, note)
        do {
            try await store().keepWrittenAnnotation(counterID: counterID, written)
            return (written, nil)
        } catch {
            return (written, error)
        }
    }
}

extension HistoryLoader {
    /// How long a counter's annotations, once read, are shown as kept without reading them again: an
    /// hour (a note written in Metrika's own interface shows within it; one `metrika annotate` wrote
    /// shows at once).
    package static let annotationsMemory: TimeInterval = 3600

    /// The counter's chart annotations, in the API's order: the kept set while it was read within
    /// `annotationsMemory`, else read again (one Management request) and kept, replacing the set.
    /// Offline, or when the read fails, the kept ones (none kept and unreadable: the failure).
    package func annotations(counterID: Int) async -> Result<[Annotation], any Error> {
        let kept = try? await store.storedAnnotations(counterID: counterID)
        if let kept, let readAt = kept.readAt, abs(now().timeIntervalSince(readAt)) < Self.annotationsMemory {
            return .success(kept.annotations)
        }
        guard let client else { return .success(kept?.annotations ?? []) }
        do {
            let read = try await client.fetchAnnotations(counterID: counterID)
            // Context: a set that cannot be kept (a full disk) is still shown.
            try? await store.storeAnnotations(counterID: counterID, read, readAt: now())
            return .success(read)
        } catch {
            if let kept { return .success(kept.annotations) }
            return .failure(error)
        }
    }
}
