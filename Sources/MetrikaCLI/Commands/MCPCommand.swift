import Foundation
import MetrikaAPI
import MetrikaMCP
import MetrikaModel
import MetrikaRender

/// `metrika mcp`: the same reports for AI assistants — a Model Context Protocol server on stdin and
/// stdout (newline-delimited JSON-RPC 2.0), started by the assistant. Protocol messages only on
/// stdout; diagnostics on stderr, with every known secret masked.
enum MCPCommand: Command {
    static let name = "mcp"
    static let summary = "Serve the reports to an AI assistant (Model Context Protocol on stdin/stdout)"
    static let synopses: [[UsageTerm]] = [[.optional(.tokenFile), .optional(.profile)]]
    static let discussion = """
    An assistant (Claude Desktop, Claude Code, Cursor…) starts it and talks to it on stdin/stdout;
    it runs until stdin closes and the calls still at work are answered (SIGINT/SIGTERM end it at
    once). It uses the same token, METRIKA_API_URL, METRIKA_DB history and profile as every
    command, changes nothing at Yandex, sends no mail and no webhooks.
    Revisions 2024-11-05 to 2025-11-25 (initialize handshake) and 2026-07-28 (stateless).
    Set-up for each assistant: docs/mcp.md.

    Examples:
      claude mcp add metrika -- metrika mcp
      metrika mcp --profile shop
    """
    static let options: [OptionSpec] = TokenOptions.specs

    /// The one place the server's tools come from.
    static func catalogue(session: Session) -> any MCPToolCatalogue {
        MetrikaToolCatalogue(services: session)
    }

    static func run(_ options: ParsedOptions, session given: Session) async throws -> Int32 {
        // Tool calls run side by side (up to 3) and a report prefetches its next page: together they
        // stay within the API's 3 parallel requests per user, as sync's counters do.
        var limited = given.context
        limited.transport = ParallelLimitTransport(base: limited.transport, limit: 3)
        let session = Session(context: limited, options: given.options)
        let context = session.context
        guard options.positionals.isEmpty else { throw UsageError("mcp takes no arguments") }
        // A bad profile, config file or METRIKA_API_URL fails now, not at the first tool call.
        _ = try session.profile()
        _ = try session.apiBaseURL()
        if isatty(0) == 1 {
            context.note("metrika mcp is an MCP server for an AI assistant to start (see docs/mcp.md); it reads JSON-RPC on stdin until it closes.")
            context.stderr.flush()
        }
        // The server runs until stdin closes: what it says on stderr goes out at once, not at the end.
        let server = MCPServer(catalogue: catalogue(session: session), diagnostics: { line in
            context.note(line)
            context.stderr.flush()
        })
        let out = context.stdout
        await server.serve(frames: StandardInputFrames.frames()) { line in
            out.write(maskingSecrets(in: line, context: context))
            out.flush()
            // The --verbose log of a call's requests (stderr, buffered) goes out with its answer.
            context.stderr.flush()
        }
        return ExitCode.ok
    }
}

/// A protocol line with every known secret (the token, a ClickHouse password…) masked, should a
/// server have quoted one into text a tool passes on: the last guard, behind the tools' own care.
/// Secrets with a quote or backslash, and short ones (a 4-character ClickHouse password such as `true`
/// or `1001` would rewrite JSON literals, ids and keys), are left to that care: masking them here
/// could break the line's JSON (review). The token and webhook secrets are far longer.
func maskingSecrets(in line: String, context: CLIContext) -> String {
    let secrets = context.secrets.all(environment: context.environment).filter { $0.count >= 12 && !$0.contains("\"") && !$0.contains("\\") }
    return TerminalText.masking(secrets, in: line)
}
