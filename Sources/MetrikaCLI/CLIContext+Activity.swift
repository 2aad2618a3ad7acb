import MetrikaModel
import MetrikaUseCases

/// Use cases speak through `Activity`; the CLI's context is the one that reaches stderr.
extension CLIContext: Activity {
    package var naming: ParameterNaming { .cli }
}
