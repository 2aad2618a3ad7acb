import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases

/// The one services seam of the entry points beside the CLI's commands (the MCP server's tools, the
/// bot): the API client (token, URL, retries), the history database and its loader, the clock, the
/// chart rasterizer, the config file's alert settings and default counters, the Telegram bot. `Services`
/// conforms (`Services+RunServices.swift`); tests give their own over the simulator and a temporary
/// database. Every method throws the failure the CLI would print for the same setting.
package protocol RunServices: Sendable {
    /// The time metrika takes as now (`METRIKA_NOW` pins it).
    var now: @Sendable () -> Date { get }
    /// The API client of the run.
    func client() async throws -> MetrikaClient
    /// A history loader over the run's database: with the API client, or none (`offline`: a
    /// database that does not exist is an error, nothing is created; read only).
    func historyLoader(offline: Bool) async throws -> HistoryLoader
    /// A history loader that takes the last `unsettledDays` days as still changing.
    func historyLoader(offline: Bool, unsettledDays: Int) async throws -> HistoryLoader
    /// The run's history database, opened once and shared by every caller.
    func history() async throws -> HistoryStore
    /// SVG → PNG (rsvg-convert); its failure says how to install it.
    var rasterizer: any ChartRasterizer { get }
    /// The config file's `"alerts"` over the defaults (as `metrika alert` reads them).
    func alertSettings() throws -> AlertSettings
    /// The counters an alert check looks at: `ids` (one that cannot be read is a failure among the
    /// others), else every counter the token can read (offline: every counter in the history).
    func alertCounters(
        _ ids: [Int], loader: HistoryLoader
    ) async throws -> (counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)])
    /// The counters to use when none is named (METRIKA_COUNTER, the profile's, the config file's) and
    /// where they came from; nil when none is set.
    func defaultCounters() throws -> (ids: [String], source: String)?
    /// The Telegram bot of the run (its token from the environment, the config or the keyring).
    func telegramBot() async throws -> TelegramBot
    /// The secrets known to the run (the token, a webhook's), masked out of every text an entry point returns.
    var secrets: [String] { get }
}
