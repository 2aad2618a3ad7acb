/// The wrong command line (or a request a use case cannot serve as asked): printed by the CLI as
/// `Error: …` plus the usage line, exit 64. In the model because use cases validate too.
package struct UsageError: MetrikaFailure {
    package let message: String
    package var exitCode: Int32 { ExitCode.usage }

    /// Messages quote what the user typed; a newline or terminal escape in it must not break the
    /// one `Error:` line, so control characters become spaces.
    package init(_ message: String) {
        self.message = String(
            String.UnicodeScalarView(
                message.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? " " : $0 }))
    }
}
