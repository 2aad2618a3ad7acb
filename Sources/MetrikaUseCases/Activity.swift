import Foundation
import MetrikaModel

/// What a use case may say while it works, and the clock it reads: the CLI's context conforms (notes
/// and the progress line on stderr), tests record. Use cases never see the CLI itself.
package protocol Activity: Sendable {
    /// How this entry point names parameters in notes (`--offline`, `offline`).
    var naming: ParameterNaming { get }
    /// The time metrika takes as now (`METRIKA_NOW` pins it).
    var now: @Sendable () -> Date { get }
    /// One line for the person (a note, a warning); never data.
    func note(_ line: String)
    /// The progress status of long work (shown on a terminal only; redraws throttled unless `force`).
    func progress(_ text: String, force: Bool)
    /// Erases the progress line.
    func endProgress()
    /// Progress of work over counted items (`Checking: 12/1000 counters`): `text` for a terminal's
    /// progress line, the counts for an entry point that reports numbers (MCP's progress notifications).
    func progress(_ text: String, done: Int, total: Int)
}

extension Activity {
    /// Plain names, unless the entry point says its own (the CLI, the MCP server do).
    package var naming: ParameterNaming { .neutral }

    /// The text on the progress line, the last one forced (a terminal shows the counts as words).
    package func progress(_ text: String, done: Int, total: Int) { progress(text, force: done == total) }
}
