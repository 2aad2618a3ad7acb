import Foundation
import MetrikaModel
import MetrikaServices

/// A command's run: its options (with the default counter filled in), the terminal's context and the
/// run's services, built once by `CLI.dispatch` from the two (the config file is read once, through
/// the services).
struct Session: Sendable {
    let context: CLIContext
    let options: ParsedOptions
    let services: Services

    /// The services of `options` in `context`'s world.
    init(context: CLIContext, options: ParsedOptions) {
        let selection = ServicesSelection(options, environment: context.environment)
        let services = Services(world: context.servicesWorld, selection: selection)
        self.init(context: context, options: options, services: services)
    }

    init(context: CLIContext, options: ParsedOptions, services: Services) {
        self.context = context
        self.options = options
        self.services = services
    }
}

extension CLIContext {
    /// The world the services run in: this context's environment, transports, clock, rasterizer and
    /// secrets; its notes and the progress line's retry waits on stderr.
    var servicesWorld: ServicesWorld {
        let context = self
        return ServicesWorld(
            environment: environment, transport: transport, streamingTransport: streamingTransport, now: now,
            sleep: sleep, rasterizer: rasterizer, secrets: secrets, activity: context,
            retryWait: { context.showRetryWait($0) })
    }
}

extension ServicesSelection {
    /// What the command line chose: `--token-file`, `--profile`, `--db` (else METRIKA_DB, else the XDG
    /// default), `--verbose`, login's `--client-id` and `--client-secret`.
    init(_ options: ParsedOptions, environment: [String: String]) {
        self.init(
            tokenFile: options[.tokenFile],
            profile: options[.profile].map { Profile(name: $0, selectedBy: "--profile") },
            databasePath: DatabaseOptions.path(options, environment: environment), verbose: options[.verbose],
            clientID: options[.clientID], clientSecret: options[.clientSecret])
    }
}
