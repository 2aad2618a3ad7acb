import Foundation
import MetrikaAPI
import MetrikaMCP
import MetrikaModel
import MetrikaSystem
import MetrikaUseCases

// The run's session serves the MCP server's tools (`MetrikaToolCatalogue(services: session)`): the
// same client, history database, clock, rasterizer and config file as every command, read the same
// way — so `metrika --profile X mcp` answers as `metrika --profile X report` does.

extension Session: MCPServices {
    var now: @Sendable () -> Date { context.now }

    func historyLoader(offline: Bool) async throws -> HistoryLoader {
        try await historyLoader(offline: offline, unsettledDays: 2, readOnly: offline)
    }

    var rasterizer: any ChartRasterizer { context.rasterizer }

    func alertSettings() throws -> AlertSettings {
        try AlertRun.settings(from: try configFile()?.alerts)
    }

    func alertCounters(_ ids: [Int], loader: HistoryLoader) async throws -> (counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)]) {
        try await AlertRun(loader: loader, settings: try alertSettings(), activity: context).counters(ids)
    }

    var secrets: [String] { context.secrets.all(environment: context.environment) }
}
