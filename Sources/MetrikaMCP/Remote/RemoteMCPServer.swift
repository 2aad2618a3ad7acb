import Dispatch
import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
import Synchronization

/// What `metrika mcp --listen` is told.
package struct RemoteOptions: Sendable {
    /// The address and port to bind.
    package var host: String
    package var port: Int
    /// The URL clients reach the server at, without a trailing slash (`https://mcp.example.com`):
    /// the OAuth documents' issuer and resource, the allowed Origin; `http://HOST:PORT` when not given.
    package var publicURL: String?
    /// Origins (`https://app.example.com`) allowed besides the public URL's.
    package var allowedOrigins: [String]
    /// Tool calls a member may make in a minute.
    package var callsPerMinute = 60
    package var connectionLimit = 100
    /// A connection idle this long (its headers unfinished too) is closed.
    package var timeoutSeconds = 30

    package init(host: String, port: Int, publicURL: String? = nil, allowedOrigins: [String] = []) {
        self.host = host
        self.port = port
        self.publicURL = publicURL
        self.allowedOrigins = allowedOrigins
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1).
    package static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1" || host == "localhost"
    }
}

/// `metrika mcp --listen`: the stdio server's tools over Streamable HTTP at `/mcp`, for a team. Every
/// request names its member by a bearer token (`metrika mcp token add`, or OAuth for Claude.ai and
/// ChatGPT: `OAuthServer`); a member limited to counters sees only those. Each request is one message
/// handled by an `MCPServer` of its own over the host's services (the API's 3 parallel requests are the
/// whole server's, as on stdio), so one member's slow call holds up nobody else's.
package final class RemoteMCPServer: Sendable {
    private let host: MCPHost
    private let options: RemoteOptions
    private let members: TeamMembersFile
    package let oauth: OAuthServer
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    private let calls = Mutex<[String: CallWindow]>([:])
    private let startedAt = ContinuousClock.now
    /// The answers of questions the history answers, asked again (`quickAnswer`).
    package let answers: AnswerCache
    private let generation: HistoryGeneration
    private let lastUseWritten = Mutex<[String: ContinuousClock.Instant]>([:])
    private let fileQueue = DispatchQueue(label: "metrika mcp members")
    /// The tool calls at work, by member id and request id: what a member's `notifications/cancelled` finds.
    private let flights = Mutex<[String: [Flight]]>([:])
    /// The public URL (no trailing slash) and the allowed origins.
    package let publicURL: String
    private let origins: Set<String>

    package init(
        host: MCPHost, options: RemoteOptions, members: TeamMembersFile, boundPort: Int,
        fetcher: any ClientMetadataFetcher, log: @escaping @Sendable (String) -> Void
    ) {
        self.host = host
        self.options = options
        self.members = members
        self.log = log
        self.now = host.services.world.now
        answers = AnswerCache()
        generation = HistoryGeneration(path: host.services.databasePath)
        let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
        let base = options.publicURL ?? "http://\(shownHost):\(boundPort)"
        publicURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        origins = Set(options.allowedOrigins + [Self.origin(of: publicURL)].compactMap { $0 })
        oauth = OAuthServer(
            issuer: publicURL, resource: publicURL + "/mcp", members: members,
            loopbackClients: RemoteOptions.isLoopback(options.host), fetcher: fetcher, now: host.services.world.now)
    }

    /// `scheme://host[:port]` of a URL.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    // MARK: - Routing

    package func handle(_ request: ListenerRequest) async -> ListenerResponse {
        switch request.path {
        case "/mcp":
            return await mcp(request)
        case "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp":
            guard request.method == "GET" else { return Self.notAllowed("GET") }
            return .json(200, oauth.protectedResourceMetadata.serialized())
        case "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration":
            guard request.method == "GET" else { return Self.notAllowed("GET") }
            return .json(200, oauth.authorizationServerMetadata.serialized())
        case "/authorize":
            switch request.method {
            case "GET": return await oauth.authorizePage(request.query)
            case "POST": return await oauth.authorizeApproval(FormBody.parse(request.body))
            default: return Self.notAllowed("GET, POST")
            }
        case "/token":
            guard request.method == "POST" else { return Self.notAllowed("POST") }
            return await oauth.token(FormBody.parse(request.body))
        default:
            return .json(404, #"{"error":"not found: this server answers at /mcp"}"#)
        }
    }

    static func notAllowed(_ allow: String) -> ListenerResponse {
        .json(405, #"{"error":"method not allowed"}"#, headers: [("Allow", allow)])
    }

    // MARK: - /mcp

    /// A request to /mcp that passed every check but the rate: its member and its message.
    private struct MCPCall {
        var member: TeamMember
        var id: RequestID
        var method: String
        var params: JSONValue?
        var headerVersion: String?
        var acceptsJSON: Bool
        var acceptsEvents: Bool
        /// A `tools/call`'s tool, arguments and the counters they name.
        var tool: String?
        var arguments: JSONValue?
        var counters: [Int]
        /// Whether the answer goes as server-sent events (asked with Accept, or progress asked).
        var stream: Bool
    }

    private enum Checked {
        case call(MCPCall)
        case answered(ListenerResponse)
    }

    /// A `get_report` asked again, answered from `answers` on the connection's own thread without
    /// building the report (the same checks first, the rate too); nil: the request goes the usual way
    /// (`handle`), which keeps its answer when it may be kept.
    package func quickAnswer(_ request: ListenerRequest) -> ListenerResponse? {
        guard request.path == "/mcp", request.method == "POST" else { return nil }
        let started = ContinuousClock.now
        let call: MCPCall
        // The connection's own thread (not the cooperative pool): the members file is read here.
        switch check(request, members: Result { try members.currentHere() }) {
        case .call(let checked): call = checked
        case .answered(let response): return response
        }
        guard let key = answerKey(call), let line = answers.answer(for: key, id: call.id.raw) else { return nil }
        if let refusal = overTheRate(call) { return refusal }
        noteUse(call.member)
        log(
            logLine(
                call.member, tool: call.tool, counters: call.counters, milliseconds: Self.milliseconds(since: started),
                outcome: "ok"))
        return .json(200, line)
    }

    /// Where `call`'s answer is kept, when it may be: a `get_report` answered as JSON, on a history
    /// database there is (`HistoryGeneration`).
    private func answerKey(_ call: MCPCall) -> AnswerCache.Key? {
        guard call.tool == GetReportTool.spec.name, !call.stream, let arguments = call.arguments,
            let generation = generation.current()
        else { return nil }
        let stateless = MCPRevision.hasStatelessEnvelope(call.params)
        return AnswerCache.Key(
            scope: call.member.counters, revision: (stateless ? "stateless " : "") + (call.headerVersion ?? "-"),
            tool: GetReportTool.spec.name, arguments: arguments,
            minute: Int((now().timeIntervalSince1970 / 60).rounded(.down)), generation: generation)
    }

    /// Whether a `get_report` with `arguments` is answered from the history alone (a time series or
    /// the portfolio; a dimension report asks the API).
    static func answeredFromHistory(_ arguments: JSONValue?) -> Bool {
        guard case .object(let members)? = arguments,
            let given = try? ToolArguments.decode(members, for: GetReportTool.spec),
            let request = try? GetReportTool.request(given)
        else { return false }
        return request.usesHistory || request.allCounters
    }

    /// The 429 of a member over its calls a minute (the call is counted when it is not).
    private func overTheRate(_ call: MCPCall) -> ListenerResponse? {
        guard let wait = admit(call.member) else { return nil }
        log(
            logLine(
                call.member, tool: call.tool, counters: call.counters, milliseconds: 0,
                outcome: "refused: over the rate"))
        return Self.rpcError(
            429, call.id, JSONRPCError.invalidRequest,
            "Too many calls: at most \(options.callsPerMinute) a minute per member; try again in \(wait) s",
            headers: [("Retry-After", String(wait))])
    }

    /// Every check of a request to /mcp but the rate: refused (the method, the Origin, the bearer
    /// token, Accept, Content-Type, the JSON, the protocol headers) or answered (a notification or a
    /// response: 202), else the call with its member.
    private func check(_ request: ListenerRequest, members: Result<[TeamMember], any Error>) -> Checked {
        guard request.method == "POST" else { return .answered(Self.notAllowed("POST")) }
        if let origin = request.headers["origin"], !origins.contains(origin) {
            return .answered(.json(403, #"{"error":"this Origin is not allowed (see --allow-origin)"}"#))
        }
        let member: TeamMember
        switch authenticate(request.headers["authorization"], among: members) {
        case .success(let found): member = found
        case .failure(let refusal): return .answered(refusal)
        }
        let accept = request.headers["accept"] ?? "*/*"
        let acceptsJSON = accept.contains("application/json") || accept.contains("*/*")
        let acceptsEvents = accept.contains("text/event-stream")
        guard acceptsJSON || acceptsEvents else {
            return .answered(
                Self.rpcError(406, nil, JSONRPCError.invalidRequest, "Not acceptable: accept application/json"))
        }
        guard (request.headers["content-type"] ?? "").lowercased().hasPrefix("application/json") else {
            return .answered(
                Self.rpcError(
                    415, nil, JSONRPCError.invalidRequest, "Unsupported media type: send application/json"))
        }
        let parsed: (value: JSONValue, rawID: String?)
        do {
            parsed = try BoundedJSONParser.parse(request.body)
        } catch {
            return .answered(Self.rpcError(400, nil, JSONRPCError.parseError, "Parse error: \(error.message)"))
        }
        let message = IncomingMessage.classify(parsed.value, rawID: parsed.rawID)
        let headerVersion = request.headers["mcp-protocol-version"]
        if let headerVersion, !(MCPRevision.handshake + MCPRevision.stateless).contains(headerVersion) {
            return .answered(
                Self.rpcError(
                    400, nil, JSONRPCError.invalidRequest,
                    "Bad request: unsupported MCP-Protocol-Version \(headerVersion)"))
        }
        guard case .request(let id, let method, let params) = message else {
            // Notifications and responses: accepted, nothing to answer. A cancel stops the member's own
            // call of that id (another member's calls are not even looked at).
            if case .invalid(let id, let text) = message {
                return .answered(Self.rpcError(400, id, JSONRPCError.invalidRequest, text))
            }
            if case .notification("notifications/cancelled", let params) = message,
                let requestID = ProtocolParams.of(params).requestID, let key = RequestID.key(of: requestID)
            {
                for flight in flights.withLock({ $0[Flight.key(member, key)] ?? [] }) { flight.cancel(key) }
            }
            return .answered(ListenerResponse(status: 202))
        }
        if let mismatch = Self.headerMismatch(request.headers, method: method, params: params) {
            return .answered(Self.rpcError(400, id, -32020, mismatch))
        }
        var call = MCPCall(
            member: member, id: id, method: method, params: params, headerVersion: headerVersion,
            acceptsJSON: acceptsJSON, acceptsEvents: acceptsEvents, tool: nil, arguments: nil, counters: [],
            stream: acceptsEvents && !acceptsJSON)
        if method == "tools/call",
            let decoded = params.flatMap({ try? JSONValueDecoder.decode(ToolCallParams.self, from: $0) })
        {
            call.tool = decoded.name
            if case .value(let arguments) = decoded.arguments { call.arguments = arguments }
            if case .value(.object(let arguments)) = decoded.arguments {
                for (key, value) in arguments {
                    if key == "counter_id", case .number(let id) = value { call.counters.append(Int(id)) }
                    if key == "counter_ids", case .array(let ids) = value {
                        for case .number(let id) in ids { call.counters.append(Int(id)) }
                    }
                }
            }
            // Progress notifications go on a stream (asked with Accept).
            if decoded.name != nil, decoded.progressToken != nil, acceptsEvents { call.stream = true }
        }
        return .call(call)
    }

    private func mcp(_ request: ListenerRequest) async -> ListenerResponse {
        let call: MCPCall
        let read: Result<[TeamMember], any Error>
        do { read = .success(try await members.current()) } catch { read = .failure(error) }
        switch check(request, members: read) {
        case .call(let checked): call = checked
        case .answered(let response): return response
        }
        if call.tool != nil, let refusal = overTheRate(call) { return refusal }
        let key = answerKey(call)
        let member = call.member
        let id = call.id
        let tool = call.tool
        let counters = call.counters
        noteUse(member)
        let stream = call.stream
        let catalogue = MetrikaToolCatalogue(
            services: host.services,
            scope: member.counters.map { CounterScope(member: member.name, counters: Set($0)) })
        let server = MCPServer(catalogue: catalogue, diagnostics: log)
        let flight = Flight(server: server)
        let flightKey = Flight.key(member, id.key)
        if tool != nil { flights.withLock { $0[flightKey, default: []].append(flight) } }
        let landed: @Sendable () -> Void = {
            self.flights.withLock { all in
                all[flightKey]?.removeAll { $0 === flight }
                if all[flightKey]?.isEmpty == true { all[flightKey] = nil }
            }
        }
        let secrets = host.services.secrets
        let version = call.headerVersion ?? "2025-03-26"
        let started = ContinuousClock.now
        let body = request.body
        if stream {
            let events = ResponseStream()
            Task {
                let last = Mutex<String?>(nil)
                await server.serveMessage(body, handshakeVersion: version) { line in
                    let masked = MCPHost.masking(secrets, in: line.hasSuffix("\n") ? String(line.dropLast()) : line)
                    last.withLock { $0 = masked }
                    events.write("event: message\ndata: \(masked)\n\n")
                }
                landed()
                let answered = last.withLock { $0?.hasPrefix(#"{"jsonrpc":"2.0","method""#) == false }
                if flight.cancelled.load(ordering: .acquiring), !answered {
                    events.write("event: message\ndata: \(Self.cancelledLine(id))\n\n")
                    last.withLock { $0 = nil }
                }
                events.finish()
                if let tool {
                    log(
                        logLine(
                            member, tool: tool, counters: counters, milliseconds: Self.milliseconds(since: started),
                            outcome: Self.outcome(last.withLock { $0 })))
                }
            }
            return ListenerResponse(
                status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
                stream: events)
        }
        let lines = Mutex<[String]>([])
        await server.serveMessage(body, handshakeVersion: version) { line in
            let text = line.hasSuffix("\n") ? String(line.dropLast()) : line
            // Only the response: progress notifications go on a stream (asked with Accept).
            if !text.hasPrefix(#"{"jsonrpc":"2.0","method""#) {
                lines.withLock { $0.append(MCPHost.masking(secrets, in: text)) }
            }
        }
        landed()
        let answer = lines.withLock { $0.last }
        // Kept when nothing was written to the history meanwhile (the answer is then the stamp's).
        if let key, let answer, Self.outcome(answer) == "ok", generation.current() == key.generation,
            Self.answeredFromHistory(call.arguments)
        {
            answers.keep(answer, id: id.raw, for: key)
        }
        if let tool {
            log(
                logLine(
                    member, tool: tool, counters: counters, milliseconds: Self.milliseconds(since: started),
                    outcome: Self.outcome(answer)))
        }
        guard let answer else {
            // Cancelled by its member (answered as such), or the server is stopping.
            if flight.cancelled.load(ordering: .acquiring) { return .json(200, Self.cancelledLine(id)) }
            return Self.rpcError(503, id, JSONRPCError.internalError, "The server is stopping")
        }
        return .json(200, answer)
    }

    /// The 2026-07-28 transport rule: MCP-Protocol-Version, Mcp-Method and Mcp-Name repeat the body's.
    static func headerMismatch(_ headers: [String: String], method: String, params: JSONValue?) -> String? {
        guard method != "initialize", MCPRevision.hasStatelessEnvelope(params),
            case .value(let meta) = ProtocolParams.of(params).meta, case .value(let version) = meta.protocolVersion
        else {
            if let header = headers["mcp-protocol-version"], MCPRevision.stateless.contains(header),
                method != "initialize"
            {
                return "MCP-Protocol-Version \(header) needs the request envelope (params._meta) of that revision"
            }
            return nil
        }
        if headers["mcp-protocol-version"] != version {
            return "MCP-Protocol-Version header does not match the request envelope's protocol version"
        }
        if headers["mcp-method"] != method {
            return "Mcp-Method header does not match the request body's method"
        }
        if method == "tools/call",
            let name = params.flatMap({ try? JSONValueDecoder.decode(ToolCallParams.self, from: $0) })?.name,
            HeaderValue.decode(headers["mcp-name"]) != name
        {
            return "Mcp-Name header does not match the request body's name"
        }
        return nil
    }

    // MARK: - Members

    private enum Authentication {
        case success(TeamMember)
        case failure(ListenerResponse)
    }

    private func authenticate(_ header: String?, among members: Result<[TeamMember], any Error>) -> Authentication {
        let challenge = "Bearer resource_metadata=\"\(publicURL)/.well-known/oauth-protected-resource\""
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            return .failure(
                .json(
                    401, #"{"error":"unauthorized","error_description":"send Authorization: Bearer TOKEN"}"#,
                    headers: [("WWW-Authenticate", challenge)]))
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        let hash = SHA256.hex(token)
        do {
            let all = try members.get()
            if let member = all.first(where: { $0.tokenHash.map { Secrets.equal($0, hash) } ?? false }) {
                return .success(member)
            }
            if let member = oauth.member(ofAccessTokenHash: hash, among: all) {
                return .success(member)
            }
        } catch {
            log("metrika mcp: \((error as? any MetrikaFailure)?.message ?? "cannot read the members file")")
            return .failure(Self.rpcError(500, nil, JSONRPCError.internalError, "The server cannot read its members"))
        }
        return .failure(
            .json(
                401, #"{"error":"invalid_token","error_description":"unknown, expired or revoked token"}"#,
                headers: [("WWW-Authenticate", challenge + ", error=\"invalid_token\"")]))
    }

    /// nil when the member may call now (the call is counted), else the seconds to wait.
    private func admit(_ member: TeamMember) -> Int? {
        let second = Int((ContinuousClock.now - startedAt).components.seconds)
        let limit = options.callsPerMinute
        return calls.withLock { $0[member.id, default: CallWindow()].admit(second: second, limit: limit) }
    }

    /// Writes the member's last use (at most once a minute each, off the request's path).
    private func noteUse(_ member: TeamMember) {
        let clock = ContinuousClock.now
        let due = lastUseWritten.withLock { written -> Bool in
            if let last = written[member.id], clock - last < .seconds(60) { return false }
            written[member.id] = clock
            return true
        }
        guard due else { return }
        let members = self.members
        let when = now()
        let log = self.log
        fileQueue.async {
            do {
                try members.update { all in
                    if let index = all.firstIndex(where: { $0.id == member.id }) { all[index].lastUsed = when }
                }
            } catch {
                log("metrika mcp: \((error as? any MetrikaFailure)?.message ?? "cannot write the members file")")
            }
        }
    }

    /// The answer to a call its member cancelled: over HTTP the POST must end with something.
    static func cancelledLine(_ id: RequestID) -> String {
        JSONRPCLine.error(id: id, code: JSONRPCError.requestCancelled, message: "Request cancelled")
    }

    // MARK: - Answers and the log

    static func rpcError(
        _ status: Int, _ id: RequestID?, _ code: Int, _ message: String, headers: [(String, String)] = []
    ) -> ListenerResponse {
        .json(status, JSONRPCLine.error(id: id, code: code, message: message), headers: headers)
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Now in UTC, `2026-12-07T10:00:00Z` (the wall clock: a log's time, not METRIKA_NOW's).
    static func utcTime() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// What a call's response line says: ok, a tool error, a protocol error, or none (cancelled).
    static func outcome(_ line: String?) -> String {
        guard var line else { return "cancelled" }
        // Byte searches: Foundation's `contains` on a long line cost a tenth of a call's CPU.
        return line.withUTF8 { bytes in
            func has(_ needle: StaticString) -> Bool {
                let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
                guard bytes.count >= pattern.count, let first = pattern.first else { return false }
                var index = 0
                while index <= bytes.count - pattern.count {
                    if bytes[index] == first, (1..<pattern.count).allSatisfy({ bytes[index + $0] == pattern[$0] }) {
                        return true
                    }
                    index += 1
                }
                return false
            }
            if has(#""isError":true"#) { return "tool-error" }
            if has(#","error":{"#) { return "rpc-error" }
            return "ok"
        }
    }

    private func logLine(_ member: TeamMember, tool: String?, counters: [Int], milliseconds: Int, outcome: String)
        -> String
    {
        let time = Self.utcTime()
        let shownCounters = counters.isEmpty ? "-" : counters.map(String.init).joined(separator: ",")
        return
            "\(time) member=\(TerminalText.sanitize(member.name)) tool=\(TerminalText.sanitize(tool ?? "-")) counters=\(shownCounters) "
            + "ms=\(milliseconds) outcome=\(outcome)"
    }
}

/// A tool call at work on its own `MCPServer`, which its member may cancel.
private final class Flight: Sendable {
    let server: MCPServer
    let cancelled = Atomic<Bool>(false)

    init(server: MCPServer) { self.server = server }

    /// The registry's key: a member's id and a request id (members' ids never collide).
    static func key(_ member: TeamMember, _ requestKey: String) -> String { member.id + "\u{0}" + requestKey }

    func cancel(_ requestKey: String) {
        cancelled.store(true, ordering: .releasing)
        server.cancel(requestKey: requestKey)
    }
}

extension ProtocolParams {
    /// Whether `params._meta.progressToken` is there.
    static func hasProgressToken(_ params: JSONValue) -> Bool {
        (try? JSONValueDecoder.decode(ToolCallParams.self, from: params))?.progressToken != nil
    }
}

/// The 2026-07-28 header encoding: plain ASCII as is, anything else `=?base64?…?=`.
enum HeaderValue {
    static func decode(_ value: String?) -> String? {
        guard let value else { return nil }
        guard value.hasPrefix("=?base64?"), value.hasSuffix("?="), value.count >= 11 else { return value }
        let payload = String(value.dropFirst(9).dropLast(2))
        return Data(base64Encoded: payload).flatMap { String(data: $0, encoding: .utf8) }
    }
}

/// An `application/x-www-form-urlencoded` body's fields (the last of a repeated name).
enum FormBody {
    static func parse(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return fields
    }
}

/// A member's calls in the last minute, counted per second (the same few bytes at 60 calls a minute
/// as at a million): a call is admitted while fewer than the limit were made in the 60 seconds up to
/// this one.
struct CallWindow {
    private var counts = [Int](repeating: 0, count: 60)
    private var seconds = [Int](repeating: Int.min, count: 60)

    /// nil when a call in `second` (since any fixed start) is admitted (it is counted), else the
    /// seconds until one is.
    mutating func admit(second: Int, limit: Int) -> Int? {
        var total = 0
        var oldest = second
        for slot in 0..<60 where seconds[slot] > second - 60 && counts[slot] > 0 {
            total += counts[slot]
            oldest = min(oldest, seconds[slot])
        }
        if total >= limit { return max(1, oldest + 60 - second) }
        let slot = second % 60
        if seconds[slot] != second {
            seconds[slot] = second
            counts[slot] = 0
        }
        counts[slot] += 1
        return nil
    }
}
