import MetrikaAPI
import MetrikaModel

/// The owner's chart annotations beside a change (issue 48): read once per counter, never fatal.
package enum AnnotationText {
    /// `annotation on Sun 2026-11-29: "Новый шаблон сайта"` (the title made safe for a terminal).
    package static func line(_ note: Annotation) -> String {
        "annotation on \(AlertText.dayText(note.day)): \"\(TerminalText.sanitize(note.title, limit: 255))\""
    }

    /// The counter's annotations on the days `days` holds, in the API's order; nil when they could not
    /// be read (the caller goes on without them and says so only when asked to).
    package static func annotations(
        counterID: Int, on days: ClosedRange<Day>, client: MetrikaClient
    ) async -> Result<[Annotation], any Error> {
        do {
            let all = try await client.fetchAnnotations(counterID: counterID)
            return .success(all.filter { days.contains($0.day) })
        } catch {
            return .failure(error)
        }
    }
}
