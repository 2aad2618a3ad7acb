import Foundation
import MetrikaAPI
import MetrikaSystem
import MetrikaUseCases

/// The world the services run in: what an entry point injects and tests swap (swift-openapi-runtime's
/// ClientTransport idea). Nothing here is a terminal's: the CLI builds it from its `CLIContext`, a
/// server from its own process, a test from fakes.
package struct ServicesWorld: Sendable {
    /// Environment variables (METRIKA_TOKEN, METRIKA_API_URL, XDG_*, …).
    package var environment: [String: String]
    /// JSON calls (the API, OAuth, webhooks, Telegram).
    package var transport: any HTTPTransport
    /// Streamed exchanges: Logs API part downloads (signed and renewed like `transport`'s calls, see
    /// `Services.client`) and ClickHouse statements and inserts (no token).
    package var streamingTransport: any StreamingHTTPTransport
    /// The time metrika takes as now (`METRIKA_NOW` pins it).
    package var now: @Sendable () -> Date
    /// The waits of retries and polls.
    package var sleep: @Sendable (Double) async throws -> Void
    /// SVG → PNG (default: rsvg-convert found via `environment`).
    package var rasterizer: any ChartRasterizer
    /// The secrets of the run (the token, the OAuth app's secret, a webhook's): added as they are found,
    /// masked in every line an entry point writes.
    package var secrets: KnownSecrets
    /// Where the services' notes go (warnings, the `--verbose` request log): the entry point's own.
    package var activity: any Activity
    /// What a retried request shows while it waits (nil: the wait is over).
    package var retryWait: @Sendable (RetryWait?) -> Void

    package init(
        environment: [String: String], transport: any HTTPTransport, streamingTransport: any StreamingHTTPTransport,
        now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Double) async throws -> Void,
        rasterizer: any ChartRasterizer, secrets: KnownSecrets, activity: any Activity,
        retryWait: @escaping @Sendable (RetryWait?) -> Void = { _ in }
    ) {
        self.environment = environment
        self.transport = transport
        self.streamingTransport = streamingTransport
        self.now = now
        self.sleep = sleep
        self.rasterizer = rasterizer
        self.secrets = secrets
        self.activity = activity
        self.retryWait = retryWait
    }

    /// This world with at most `limit` requests of `transport` in flight at once (the API allows 3
    /// parallel requests per user: an MCP server's calls together stay within them).
    package func limitingRequests(to limit: Int) -> ServicesWorld {
        var limited = self
        limited.transport = ParallelLimitTransport(base: transport, limit: limit)
        return limited
    }
}
