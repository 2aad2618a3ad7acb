import Foundation
import MetrikaAPI
import MetrikaMCP
import MetrikaModel
import MetrikaRender
import MetrikaServices
import MetrikaSystem

/// `metrika mcp --listen HOST:PORT`: the MCP server for a team, over HTTP, until SIGINT or SIGTERM.
enum MCPListenRun {
    /// `HOST:PORT` or `[IPv6]:PORT`; `localhost` is 127.0.0.1.
    static func address(_ text: String) -> (host: String, port: Int)? {
        var host: Substring
        var port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard !host.isEmpty, let number = Int(port), (0...65535).contains(number) else { return nil }
        return (String(host), number)
    }

    static func run(
        host: MCPHost, listen: (host: String, port: Int), publicURL: String?, origins: [String], callsPerMinute: Int,
        session: Session
    ) async throws -> Int32 {
        let context = session.context
        if let publicURL {
            guard let url = URLComponents(string: publicURL), url.host?.isEmpty == false,
                url.scheme == "https" || (url.scheme == "http" && RemoteOptions.isLoopback(listen.host)),
                url.query == nil, url.fragment == nil
            else {
                throw UsageError(
                    "--public-url must be the https URL clients reach the server at, such as https://metrika.example.com"
                )
            }
        } else if !RemoteOptions.isLoopback(listen.host) {
            throw UsageError(
                "--listen \(listen.host) is not loopback: give --public-url https://… (a reverse proxy serves TLS, see docs/mcp.md), or listen on 127.0.0.1"
            )
        }
        for origin in origins where !(origin.hasPrefix("https://") || origin.hasPrefix("http://")) {
            throw UsageError(
                "--allow-origin takes an origin such as https://app.example.com, not \(TerminalText.quote(origin))")
        }
        let members = TeamMembersFile(
            path: TeamMembersFile.path(
                configDirectory: ConfigFile.directory(environment: session.services.world.environment)))
        _ = try members.members()
        // A line per call from many connections' threads: masked and labelled as `note` does, without
        // the progress line's lock (a server draws none), which every call queued on.
        let log: @Sendable (String) -> Void = { line in
            let text = TerminalText.line(line, hiding: context.secrets.all(environment: context.environment))
            context.stderr.write(context.stderrStyle.label(text) + "\n")
            context.stderr.flush()
        }
        var options = RemoteOptions(host: listen.host, port: listen.port, publicURL: publicURL, allowedOrigins: origins)
        options.callsPerMinute = callsPerMinute
        let box = ServerBox()
        let listener: HTTPListener
        do {
            listener = try HTTPListener(
                host: listen.host, port: listen.port, connectionLimit: options.connectionLimit,
                timeoutSeconds: options.timeoutSeconds, quick: { box.server?.quickAnswer($0) }
            ) { request in
                guard let server = box.server else { return ListenerResponse(status: 503) }
                return await server.handle(request)
            }
        } catch let failure as ListenError {
            throw ListenFailure(message: "metrika mcp: " + failure.message)
        }
        let server = RemoteMCPServer(
            host: host, options: options, members: members, boundPort: listener.port,
            fetcher: CurlClientMetadataFetcher(transport: CurlTransport()), log: log)
        box.server = server
        log(
            "metrika mcp: serving \(server.publicURL)/mcp (listening on \(listen.host):\(listener.port)); members in \(members.path)"
        )
        // Until SIGINT or SIGTERM: then no new requests, the calls at work cancelled, every thread ended.
        let stop = AsyncStream.makeStream(of: Int32.self)
        let trap = SignalTrap { stop.continuation.yield($0) }
        for await _ in stop.stream { break }
        trap.cancel()
        listener.stop()
        await host.services.closeHistories()
        log("metrika mcp: stopped")
        return ExitCode.ok
    }
}

/// The server, once made (the listener's handler is made first: the server needs its port).
private final class ServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: RemoteMCPServer?
    var server: RemoteMCPServer? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// The listener could not bind (exit 69, as a service that is unavailable).
struct ListenFailure: MetrikaFailure {
    var message: String
    var exitCode: Int32 { ExitCode.unavailable }
}

/// `metrika mcp token add|list|revoke`: the members of `metrika mcp --listen`.
enum MCPTokenCommand: Command {
    static let name = "mcp token"
    static let summary = "The team members of `mcp --listen`: add (prints a token once), list, revoke"
    static let synopses: [[UsageTerm]] = [
        [.argument, .optional(.memberCounters), .optional(.oauth), .optional(.jsonOutput)]
    ]
    static let argumentChoices = ["add", "list", "revoke"]
    static let discussion = """
        add NAME prints a new bearer token for the member NAME once, on stdout alone; only its SHA-256 is
        kept, in $XDG_CONFIG_HOME/metrika/mcp-members.json (mode 0600). With --oauth it prints a one-time
        approval code instead (valid 15 minutes), which the member types on the server's page when
        Claude.ai or ChatGPT connects. --counters limits the member to those counters.
        list shows name, counters, created, last used (never a token); revoke NAME ends every token of
        the member at once, in a running server too.

        Examples:
          metrika mcp token add alice --counters 1001,1002
          metrika mcp token add bob --oauth
          metrika mcp token list --json
          metrika mcp token revoke alice
        """
    static let options: [OptionSpec] = [Option.memberCounters.spec, Option.oauth.spec, Option.jsonOutput.spec]

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        let words = options.positionals
        let file = TeamMembersFile(
            path: TeamMembersFile.path(
                configDirectory: ConfigFile.directory(environment: session.services.world.environment)))
        let now = session.services.world.now()
        switch words.first {
        case "add":
            guard words.count == 2, isName(words[1]) else {
                throw UsageError("mcp token add takes one NAME: letters, digits, '.', '_' or '-', up to 64")
            }
            if options[.jsonOutput] { throw UsageError("--json goes with mcp token list") }
            let counters = try options[.memberCounters]
            let secret = options[.oauth] ? approvalCode() : "mtk_" + Secrets.random()
            let name = words[1]
            try file.update { members in
                let hash = SHA256.hex(secret)
                if let index = members.firstIndex(where: { $0.name == name }) {
                    guard options[.oauth] else {
                        throw UsageError(
                            "the member \(name) exists: `metrika mcp token revoke \(name)` first, or --oauth for a new approval code"
                        )
                    }
                    members[index].approval = .init(hash: hash, expires: now.addingTimeInterval(900))
                    if let counters { members[index].counters = counters }
                } else {
                    members.append(
                        TeamMember(
                            name: name, id: Secrets.random(bytes: 12), counters: counters, created: now, lastUsed: nil,
                            tokenHash: options[.oauth] ? nil : hash,
                            approval: options[.oauth] ? .init(hash: hash, expires: now.addingTimeInterval(900)) : nil,
                            refreshTokens: []))
                }
            }
            context.stdout.write(secret + "\n")
            return ExitCode.ok
        case "list":
            guard words.count == 1 else { throw UsageError("mcp token list takes no NAME") }
            try refuse(options, for: "list", counters: true, json: false)
            let members = try file.members()
            let formatter = ISO8601DateFormatter()
            if options[.jsonOutput] {
                let listing = JSONValue.array(
                    members.map { member in
                        .object([
                            ("name", .string(member.name)),
                            ("counters", member.counters.map { .array($0.map { .number(Double($0)) }) } ?? .null),
                            ("created", .string(formatter.string(from: member.created))),
                            ("last_used", member.lastUsed.map { .string(formatter.string(from: $0)) } ?? .null),
                            ("bearer_token", .bool(member.tokenHash != nil)),
                            ("oauth_clients", .number(Double(member.refreshTokens.count)))
                        ])
                    })
                context.stdout.write(
                    JSONValue.object([("version", .number(1)), ("members", listing)]).serialized(pretty: true) + "\n")
                return ExitCode.ok
            }
            guard !members.isEmpty else {
                context.note("No members yet: metrika mcp token add NAME [--counters ID,…] [--oauth]")
                return ExitCode.ok
            }
            var table = TextTable(columns: [.init("Name"), .init("Counters"), .init("Created"), .init("Last used")])
            for member in members {
                table.append([
                    member.name,
                    member.counters.map { $0.map(String.init).joined(separator: ",") } ?? "all",
                    formatter.string(from: member.created),
                    member.lastUsed.map { formatter.string(from: $0) } ?? "never"
                ])
            }
            context.stdout.write(table.render(maxWidth: context.terminalWidth))
            return ExitCode.ok
        case "revoke":
            guard words.count == 2 else { throw UsageError("mcp token revoke takes one NAME") }
            try refuse(options, for: "revoke", counters: true, json: true)
            let name = words[1]
            let removed = try file.update { members -> Bool in
                let before = members.count
                members.removeAll { $0.name == name }
                return members.count < before
            }
            guard removed else {
                throw UsageError("no member \(TerminalText.quote(name)) (see metrika mcp token list)")
            }
            context.note("Revoked \(name): every token of the member stopped working.")
            return ExitCode.ok
        default:
            throw UsageError("mcp token takes add NAME, list or revoke NAME")
        }
    }

    private static func refuse(_ options: ParsedOptions, for action: String, counters: Bool, json: Bool) throws {
        let given = [
            (Option.memberCounters.name, counters && options.contains(.memberCounters)),
            (Option.oauth.name, options.contains(.oauth)),
            (Option.jsonOutput.name, json && options.contains(.jsonOutput))
        ]
        if let name = given.first(where: { $0.1 })?.0 {
            throw UsageError("--\(name) does not go with mcp token \(action)")
        }
    }

    private static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64
            && text.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)
            }
    }

    /// Twelve digits in three groups: typed by a person, tried at most 5 times per authorization.
    private static func approvalCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let groups = (0..<3).map { _ in
            let digits = String(UInt16.random(in: 0..<10_000, using: &generator))
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        return groups.joined(separator: "-")
    }
}

extension Option where Value == [Int]? {
    /// `--counters ID,…` of mcp token add.
    static var memberCounters: Option<[Int]?> {
        Option(OptionSpec("counters", value: "ID[,ID…]", help: "add: the only counters the member may read")) { given in
            guard let given else { return nil }
            return try ParsedOptions.split(given).map { text in
                guard let id = Int(text), id > 0 else {
                    throw UsageError("--counters takes counter ids such as 1001,1002, not \(TerminalText.quote(text))")
                }
                return id
            }
        }
    }
}

extension Option where Value == Bool {
    /// `--oauth` of mcp token add.
    static var oauth: Option<Bool> {
        .flag("oauth", help: "add: print a one-time approval code for Claude.ai or ChatGPT (OAuth) instead of a token")
    }
    /// `--json` of mcp token list.
    static var jsonOutput: Option<Bool> { .flag("json", help: "list: one JSON document") }
}
