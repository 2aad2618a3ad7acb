import MetrikaRender

/// The protocol revisions `metrika mcp` speaks, and how a connection picks one.
///
/// Two eras (the specification's versioning and changelog pages; the Python SDK is the reference
/// client): the handshake era (2024-11-05 … 2025-11-25: `initialize`, then `notifications/initialized`,
/// one version for the session) and the stateless era (2026-07-28: no handshake, `server/discover`,
/// every request carries its version and client capabilities in `_meta`). On stdio one server serves
/// either: the client's first request decides the era once — `initialize` (or anything without the
/// 2026 envelope) opens a handshake connection, an enveloped request a stateless one.
package enum MCPRevision {
    /// Reachable through the `initialize` handshake, oldest to newest.
    package static let handshake = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    /// Stateless revisions (per-request envelope).
    package static let stateless = ["2026-07-28"]
    /// What `initialize` answers when the client asks for a version this server does not speak.
    package static var latestHandshake: String { handshake[handshake.count - 1] }

    /// The `_meta` keys of the 2026-07-28 envelope.
    package static let protocolVersionKey = "io.modelcontextprotocol/protocolVersion"
    package static let clientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    package static let clientInfoKey = "io.modelcontextprotocol/clientInfo"
    package static let serverInfoKey = "io.modelcontextprotocol/serverInfo"

    /// The lifecycle page's rule: the client's version when this server supports it, else our latest.
    package static func negotiate(_ requested: String) -> String {
        handshake.contains(requested) ? requested : latestHandshake
    }

    /// Whether a revision has tool titles, `outputSchema` and `structuredContent` (2025-06-18 on).
    package static func hasStructuredContent(_ version: String) -> Bool {
        version != "2024-11-05" && version != "2025-03-26"
    }

    /// Whether a revision has tool annotations (2025-03-26 on).
    package static func hasAnnotations(_ version: String) -> Bool {
        version != "2024-11-05"
    }

    /// Whether `params` carries the 2026 envelope's version key (a bare `_meta` does not count:
    /// handshake-era requests put `progressToken` there).
    static func hasStatelessEnvelope(_ params: JSONValue?) -> Bool {
        guard case .value(let meta) = ProtocolParams.of(params).meta else { return false }
        return meta.hasVersion
    }
}
