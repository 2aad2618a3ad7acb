import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases

/// What the tools need from the run, the same things a command takes from its session: the API
/// client (token, URL, retries), the history database's loader, the clock, the chart rasterizer and
/// the config file's alert settings. The CLI's `Session` conforms (Session+MCP.swift); tests give
/// their own over the simulator and a temporary database. Every method throws the failure the CLI
/// would print for the same setting.
package protocol MCPServices: Sendable {
    /// The time metrika takes as now (`METRIKA_NOW` pins it).
    var now: @Sendable () -> Date { get }
    /// The API client of the run.
    func client() async throws -> MetrikaClient
    /// A history loader over the run's database: with the API client, or none (`offline`: a
    /// database that does not exist is the CLI's error, nothing is created).
    func historyLoader(offline: Bool) async throws -> HistoryLoader
    /// SVG → PNG (rsvg-convert); its failure says how to install it.
    var rasterizer: any ChartRasterizer { get }
    /// The config file's `"alerts"` over the defaults (as `metrika alert` reads them).
    func alertSettings() throws -> AlertSettings
    /// The counters an alert check looks at: `ids` (one that cannot be read is a failure among the
    /// others), else every counter the token can read (offline: every counter in the history).
    func alertCounters(_ ids: [Int], loader: HistoryLoader) async throws -> (counters: [Counter], failures: [(counterID: Int, failure: any MetrikaFailure)])
    /// The secrets known to the run (the token, a webhook's), masked out of every text a tool returns.
    var secrets: [String] { get }
}
