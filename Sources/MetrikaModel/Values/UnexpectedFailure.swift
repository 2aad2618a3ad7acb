/// An error that is no `MetrikaFailure`: nothing metrika expects. A person never sees such a value's
/// own description (a Swift dump such as `Stopped(reason: …)`, which may quote anything); they get
/// a sentence, and the error's type name only when they ask for details (`--verbose`).
package struct UnexpectedFailure: WordedFailure, Equatable {
    /// The Swift type of the error, for `--verbose` and bug reports.
    package var typeName: String

    package init(_ error: any Error) {
        typeName = String(reflecting: type(of: error))
    }

    package init(typeName: String) {
        self.typeName = typeName
    }

    package var exitCode: Int32 { ExitCode.failure }

    /// The sentence, with what to do (its details, a report) as the entry point words it.
    package func message(_ naming: ParameterNaming) -> String {
        "metrika stopped on an error it does not expect; nothing more is known about it. \(naming.action(.reportUnexpected))"
    }

    /// The words for `error` inside another sentence (a warning's reason), in neutral words: a
    /// `MetrikaFailure`'s message, else "an unexpected error", never the value's description. An entry
    /// point's own words: `ParameterNaming.reason(_:)`.
    package static func reason(_ error: any Error) -> String {
        ParameterNaming.neutral.reason(error)
    }
}
