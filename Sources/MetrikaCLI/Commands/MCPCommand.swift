import Foundation
import MetrikaAPI
import MetrikaMCP
import MetrikaModel
import MetrikaRender
import MetrikaServices

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

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        guard options.positionals.isEmpty else { throw UsageError("mcp takes no arguments") }
        // The tools over the run's services, at most 3 requests in flight; a bad profile, config file
        // or METRIKA_API_URL fails now, not at the first tool call.
        let host = try MCPHost(world: session.services.world, selection: session.services.selection)
        if isatty(0) == 1 {
            context.note(
                "metrika mcp is an MCP server for an AI assistant to start (see docs/mcp.md); it reads JSON-RPC on stdin until it closes."
            )
            context.stderr.flush()
        }
        let out = context.stdout
        // The server runs until stdin closes: what it says on stderr goes out at once, not at the end.
        await host.serve(
            frames: StandardInputFrames.frames(),
            diagnostics: { line in
                context.note(line)
                context.stderr.flush()
            }
        ) { line in
            out.write(line)
            out.flush()
            // The --verbose log of a call's requests (stderr, buffered) goes out with its answer.
            context.stderr.flush()
        }
        return ExitCode.ok
    }
}
