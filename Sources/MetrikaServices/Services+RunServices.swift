import MetrikaStore
import MetrikaUseCases

/// The run's services are the seam the MCP server's tools and the bot take: the same client, history
/// database, clock, rasterizer and config file as every command, read the same way — so
/// `metrika --profile X mcp` answers as `metrika --profile X report` does.
extension Services: RunServices {
    /// A history loader for writing, with the last `unsettledDays` days as still changing.
    package func historyLoader(offline: Bool, unsettledDays: Int) async throws -> HistoryLoader {
        try await historyLoader(offline: offline, unsettledDays: unsettledDays, readOnly: false)
    }

    /// The run's history database, opened for writing once and shared.
    package func history() async throws -> HistoryStore {
        try await openHistory(readOnly: false)
    }
}
