import Foundation
import MetrikaModel
import MetrikaServices

/// What every transport of the MCP server shares (standard input and output today; a listener beside
/// it is one more caller of `serve`): the run's services with at most `parallelRequests` API requests
/// in flight, checked before the first call, the tools over them, and the masking of every line sent.
package struct MCPHost: Sendable {
    /// Tool calls run side by side (up to 3) and a report prefetches its next page: together they
    /// stay within the API's 3 parallel requests per user, as sync's counters do.
    package static let parallelRequests = 3

    package let services: Services
    package let catalogue: any MCPToolCatalogue

    /// The services of `world` and `selection`. A bad profile, config file or METRIKA_API_URL throws
    /// now, not at the first tool call.
    package init(world: ServicesWorld, selection: ServicesSelection) throws {
        let services = Services(world: world.limitingRequests(to: Self.parallelRequests), selection: selection)
        _ = try services.profile()
        _ = try services.apiBaseURL()
        self.services = services
        self.catalogue = MetrikaToolCatalogue(services: services)
    }

    /// Serves `frames` until they end and the calls still at work are answered: every line masked
    /// (`masking`), then given to `write`; `diagnostics` gets the server's own lines (a log, never the
    /// protocol's stream). The histories the calls opened are closed at the end.
    package func serve(
        frames: AsyncStream<MCPFrame>, diagnostics: @escaping @Sendable (String) -> Void,
        write: @escaping @Sendable (String) async -> Void
    ) async {
        let server = MCPServer(catalogue: catalogue, diagnostics: diagnostics)
        let services = self.services
        await server.serve(frames: frames) { line in
            await write(Self.masking(services.secrets, in: line))
        }
        await services.closeHistories()
    }

    /// A protocol line with every known secret (the token, a ClickHouse password…) masked, should a
    /// server have quoted one into text a tool passes on: the last guard, behind the tools' own care.
    /// Secrets with a quote or backslash, and short ones (a 4-character ClickHouse password such as `true`
    /// or `1001` would rewrite JSON literals, ids and keys), are left to that care: masking them here
    /// could break the line's JSON. The token and webhook secrets are far longer.
    package static func masking(_ secrets: [String], in line: String) -> String {
        let secrets = secrets.filter { $0.count >= 12 && !$0.contains("\"") && !$0.contains("\\") }
        return TerminalText.masking(secrets, in: line)
    }
}
