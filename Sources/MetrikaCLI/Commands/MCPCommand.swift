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
    static let summary = "Serve the reports to AI assistants (Model Context Protocol on stdin/stdout or HTTP)"
    static let synopses: [[UsageTerm]] = [
        [.optional(.tokenFile), .optional(.profile)],
        [.required(.listen), .optional(.publicURL), .optional(.allowOrigin), .moreOptions]
    ]
    static let discussion = """
        An assistant (Claude Desktop, Claude Code, Cursor…) starts it and talks to it on stdin/stdout;
        it runs until stdin closes and the calls still at work are answered (SIGINT/SIGTERM end it at
        once). It uses the same token, METRIKA_API_URL, METRIKA_DB history and profile as every
        command, changes nothing at Yandex, sends no mail and no webhooks.
        Revisions 2024-11-05 to 2025-11-25 (initialize handshake) and 2026-07-28 (stateless).
        Set-up for each assistant: docs/mcp.md.

        With --listen it serves a team over HTTP (Streamable HTTP at /mcp) instead: every request needs
        a member's bearer token (`metrika mcp token add NAME`) or an OAuth token (Claude.ai, ChatGPT:
        `metrika mcp token add NAME --oauth` prints the member's approval code). It binds loopback unless
        --public-url names the https URL a reverse proxy serves it at; a request whose Origin is neither
        the public URL's nor an --allow-origin is refused (403). One line per tool call on stderr.
        SIGINT/SIGTERM stop it cleanly.

        Examples:
          claude mcp add metrika -- metrika mcp
          metrika mcp --profile shop
          metrika mcp --listen 127.0.0.1:8808
          metrika mcp --listen 0.0.0.0:8808 --public-url https://metrika.example.com
        """
    static let options: [OptionSpec] =
        TokenOptions.specs + [
            Option.listen.spec, Option.publicURL.spec, Option.allowOrigin.spec, Option.callsPerMinute.spec
        ]

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        guard options.positionals.isEmpty else { throw UsageError("mcp takes no arguments") }
        let listen = try options[.listen]
        let publicURL = options[.publicURL]
        let origins = options[.allowOrigin]
        let callsPerMinute = try options[.callsPerMinute]
        if listen == nil, publicURL != nil || !origins.isEmpty || callsPerMinute != nil {
            throw UsageError("--public-url, --allow-origin and --calls-per-minute go with --listen HOST:PORT")
        }
        // The tools over the run's services, at most 3 requests in flight; a bad profile, config file
        // or METRIKA_API_URL fails now, not at the first tool call.
        let host = try MCPHost(world: session.services.world, selection: session.services.selection)
        if let listen {
            return try await MCPListenRun.run(
                host: host, listen: listen, publicURL: publicURL, origins: origins,
                callsPerMinute: callsPerMinute ?? 60, session: session)
        }
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

extension Option where Value == (host: String, port: Int)? {
    /// `--listen HOST:PORT` of mcp.
    static var listen: Option<(host: String, port: Int)?> {
        .value(
            "listen", value: "HOST:PORT",
            help: "Serve a team over HTTP at http://HOST:PORT/mcp instead of stdin/stdout (port 0: any free one)"
        ) { text in
            guard let address = MCPListenRun.address(text) else {
                throw UsageError(
                    "--listen takes HOST:PORT such as 127.0.0.1:8808 or [::1]:8808, not \(TerminalText.quote(text))")
            }
            return address
        }
    }
}

extension Option where Value == String? {
    /// `--public-url URL` of mcp.
    static var publicURL: Option<String?> {
        .text(
            "public-url", value: "URL",
            help: "The https URL clients reach the server at, through a reverse proxy (needed off loopback)")
    }
}

extension Option where Value == [String] {
    /// `--allow-origin ORIGIN` of mcp.
    static var allowOrigin: Option<[String]> {
        .words(
            "allow-origin", value: "ORIGIN",
            help: "A browser Origin allowed besides the public URL's (repeatable: https://app.example.com)")
    }
}

extension Option where Value == Int? {
    /// `--calls-per-minute N` of mcp --listen.
    static var callsPerMinute: Option<Int?> {
        .integer(
            "calls-per-minute", help: "With --listen: the tool calls a member may make in a minute (default 60)",
            in: 1...1_000_000)
    }
}
