import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The small OAuth 2.1 authorization server of `metrika mcp --listen`, for the assistants that reach
/// remote servers only through OAuth (Claude.ai, ChatGPT): client ID metadata documents for the
/// clients, the authorization code with PKCE (S256) only, and, instead of a login, the one-time
/// approval code `metrika mcp token add NAME --oauth` printed. Access tokens live an hour, refresh
/// tokens rotate at each use; both are kept hashed in the members file (so they outlive a restart), and
/// every token dies with its member.
package final class OAuthServer: Sendable {
    package static let accessLifetime: TimeInterval = 3600
    package static let refreshLifetime: TimeInterval = 30 * 86400
    package static let codeLifetime: TimeInterval = 600
    package static let authorizationLifetime: TimeInterval = 900
    package static let wrongCodesAllowed = 5

    private let issuer: String
    private let resource: String
    private let members: TeamMembersFile
    private let loopbackClients: Bool
    private let fetcher: any ClientMetadataFetcher
    private let now: @Sendable () -> Date

    private struct Pending {
        var clientID: String
        var clientName: String
        var redirectURI: String
        var state: String?
        var challenge: String
        var expires: Date
        var wrongCodes = 0
    }
    private struct Code {
        var memberID: String
        var clientID: String
        var redirectURI: String
        var challenge: String
        var expires: Date
        var used = false
    }
    private struct State {
        var pending: [String: Pending] = [:]
        var codes: [String: Code] = [:]
    }
    private let state = Mutex(State())

    init(
        issuer: String, resource: String, members: TeamMembersFile, loopbackClients: Bool,
        fetcher: any ClientMetadataFetcher, now: @escaping @Sendable () -> Date
    ) {
        self.issuer = issuer
        self.resource = resource
        self.members = members
        self.loopbackClients = loopbackClients
        self.fetcher = fetcher
        self.now = now
    }

    // MARK: - Metadata

    /// RFC 9728.
    var protectedResourceMetadata: JSONValue {
        .object([
            ("resource", .string(resource)), ("authorization_servers", .array([.string(issuer)])),
            ("bearer_methods_supported", .array([.string("header")])), ("resource_name", .string("metrika"))
        ])
    }

    /// RFC 8414, with the client ID metadata documents' flag.
    var authorizationServerMetadata: JSONValue {
        .object([
            ("issuer", .string(issuer)), ("authorization_endpoint", .string(issuer + "/authorize")),
            ("token_endpoint", .string(issuer + "/token")), ("response_types_supported", .array([.string("code")])),
            ("grant_types_supported", .array([.string("authorization_code"), .string("refresh_token")])),
            ("code_challenge_methods_supported", .array([.string("S256")])),
            ("token_endpoint_auth_methods_supported", .array([.string("none")])),
            ("client_id_metadata_document_supported", .bool(true))
        ])
    }

    /// The member an access token (its SHA-256) stands for, while it lives, among the members file's:
    /// tokens are kept there (hashed), so they outlive a restart and die with `token revoke`.
    func member(ofAccessTokenHash hash: String, among all: [TeamMember]) -> TeamMember? {
        let now = self.now()
        return all.first { member in
            member.accessTokens?.contains {
                Secrets.equal($0.hash, hash) && $0.expires > now && $0.resource == resource
            } ?? false
        }
    }

    // MARK: - /authorize

    func authorizePage(_ query: [String: String]) async -> ListenerResponse {
        guard query["response_type"] == "code" else {
            return page(400, error: "This server gives authorization codes only (response_type=code).")
        }
        guard let clientID = query["client_id"], let redirectURI = query["redirect_uri"] else {
            return page(400, error: "The request names no client_id or redirect_uri.")
        }
        let client: ClientMetadata
        do {
            client = try await clientMetadata(clientID)
        } catch {
            return page(400, error: "The client could not be identified: \((error as? ClientRefusal)?.reason ?? "").")
        }
        guard client.redirectURIs.contains(redirectURI) else {
            return page(400, error: "The redirect_uri is not one the client's metadata document lists.")
        }
        guard query["code_challenge_method"] == "S256", let challenge = query["code_challenge"],
            (43...128).contains(challenge.count)
        else {
            return redirect(redirectURI, [("error", "invalid_request"), ("state", query["state"])])
        }
        if let asked = query["resource"], !sameResource(asked) {
            return redirect(redirectURI, [("error", "invalid_target"), ("state", query["state"])])
        }
        let id = Secrets.random()
        let expires = now().addingTimeInterval(Self.authorizationLifetime)
        state.withLock {
            $0.pending = $0.pending.filter { $0.value.expires > self.now() }
            $0.pending[id] = Pending(
                clientID: clientID, clientName: client.name, redirectURI: redirectURI, state: query["state"],
                challenge: challenge, expires: expires)
        }
        return page(200, authorization: id, client: client.name, redirectURI: redirectURI)
    }

    func authorizeApproval(_ form: [String: String]) async -> ListenerResponse {
        let id = form["authorization"] ?? ""
        let now = self.now()
        guard let pending = state.withLock({ $0.pending[id] }), pending.expires > now else {
            return page(400, error: "This authorization has ended; start again from your assistant.")
        }
        let code = (form["approval_code"] ?? "").trimmingCharacters(in: .whitespaces)
        let hash = SHA256.hex(code)
        let memberID: String?
        do {
            memberID = try await members.change { all -> String? in
                guard
                    let index = all.firstIndex(where: {
                        $0.approval.map { Secrets.equal($0.hash, hash) && $0.expires > now } ?? false
                    })
                else { return nil }
                all[index].approval = nil
                return all[index].id
            }
        } catch {
            return page(500, error: "The server cannot read its members file.")
        }
        guard let memberID else {
            let left = state.withLock { state -> Int in
                state.pending[id]?.wrongCodes += 1
                let wrong = state.pending[id]?.wrongCodes ?? Self.wrongCodesAllowed
                if wrong >= Self.wrongCodesAllowed { state.pending[id] = nil }
                return Self.wrongCodesAllowed - wrong
            }
            if left <= 0 {
                return page(
                    400,
                    error:
                        "\(Self.wrongCodesAllowed) wrong approval codes: this authorization has ended. Start again from your assistant."
                )
            }
            return page(
                400, error: "That approval code is not valid (\(left) more tries).", authorization: id,
                client: pending.clientName, redirectURI: pending.redirectURI)
        }
        let issued = Secrets.random()
        state.withLock {
            $0.pending[id] = nil
            $0.codes = $0.codes.filter { $0.value.expires > now }
            $0.codes[SHA256.hex(issued)] = Code(
                memberID: memberID, clientID: pending.clientID, redirectURI: pending.redirectURI,
                challenge: pending.challenge, expires: now.addingTimeInterval(Self.codeLifetime))
        }
        return redirect(pending.redirectURI, [("code", issued), ("state", pending.state), ("iss", issuer)])
    }

    // MARK: - /token

    func token(_ form: [String: String]) async -> ListenerResponse {
        switch form["grant_type"] {
        case "authorization_code": return await exchangeCode(form)
        case "refresh_token": return await refresh(form)
        default: return Self.tokenError("unsupported_grant_type", "authorization_code or refresh_token")
        }
    }

    private func exchangeCode(_ form: [String: String]) async -> ListenerResponse {
        guard let code = form["code"], let verifier = form["code_verifier"], let clientID = form["client_id"] else {
            return Self.tokenError("invalid_request", "code, code_verifier and client_id are needed")
        }
        if let asked = form["resource"], !sameResource(asked) {
            return Self.tokenError("invalid_target", "this server is the resource \(resource)")
        }
        let now = self.now()
        // Single use: the code is spent by this request, whatever comes of it.
        let found = state.withLock { state -> Code? in
            let key = SHA256.hex(code)
            guard var entry = state.codes[key] else { return nil }
            if entry.used { return nil }
            entry.used = true
            state.codes[key] = entry
            return entry
        }
        guard let found, found.expires > now else {
            return Self.tokenError("invalid_grant", "the code is unknown, used or expired")
        }
        guard found.clientID == clientID, form["redirect_uri"] == found.redirectURI else {
            return Self.tokenError("invalid_grant", "client_id or redirect_uri differ from the authorization's")
        }
        guard (43...128).contains(verifier.count),
            Secrets.base64URL(SHA256.digest(Array(verifier.utf8))) == found.challenge
        else {
            return Self.tokenError("invalid_grant", "the code_verifier does not match the code_challenge")
        }
        return await issue(memberID: found.memberID, clientID: clientID, replacing: nil)
    }

    private func refresh(_ form: [String: String]) async -> ListenerResponse {
        guard let token = form["refresh_token"], let clientID = form["client_id"] else {
            return Self.tokenError("invalid_request", "refresh_token and client_id are needed")
        }
        if let asked = form["resource"], !sameResource(asked) {
            return Self.tokenError("invalid_target", "this server is the resource \(resource)")
        }
        let hash = SHA256.hex(token)
        let now = self.now()
        let memberID: String?
        do {
            memberID = try await members.change { all -> String? in
                for index in all.indices {
                    guard let position = all[index].refreshTokens.firstIndex(where: { Secrets.equal($0.hash, hash) })
                    else { continue }
                    let entry = all[index].refreshTokens.remove(at: position)
                    guard entry.clientID == clientID, entry.expires > now else { return nil }
                    return all[index].id
                }
                return nil
            }
        } catch {
            return Self.tokenError("server_error", "the server cannot read its members file", status: 500)
        }
        guard let memberID else {
            return Self.tokenError("invalid_grant", "the refresh token is unknown, used, expired or revoked")
        }
        return await issue(memberID: memberID, clientID: clientID, replacing: hash)
    }

    private func issue(memberID: String, clientID: String, replacing: String?) async -> ListenerResponse {
        let access = Secrets.random()
        let refresh = Secrets.random()
        let now = self.now()
        let resource = self.resource
        do {
            let alive = try await members.change { all -> Bool in
                guard let index = all.firstIndex(where: { $0.id == memberID }) else { return false }
                all[index].refreshTokens.removeAll { $0.expires <= now }
                all[index].refreshTokens.append(
                    TeamMember.RefreshToken(
                        hash: SHA256.hex(refresh), clientID: clientID, resource: resource,
                        expires: now.addingTimeInterval(Self.refreshLifetime)))
                all[index].accessTokens =
                    (all[index].accessTokens ?? []).filter { $0.expires > now } + [
                        TeamMember.AccessToken(
                            hash: SHA256.hex(access), clientID: clientID, resource: resource,
                            expires: now.addingTimeInterval(Self.accessLifetime))
                    ]
                return true
            }
            guard alive else { return Self.tokenError("invalid_grant", "the member was revoked") }
        } catch {
            return Self.tokenError("server_error", "the server cannot write its members file", status: 500)
        }
        let body = JSONValue.object([
            ("access_token", .string(access)), ("token_type", .string("Bearer")),
            ("expires_in", .number(Self.accessLifetime)), ("refresh_token", .string(refresh))
        ])
        return .json(200, body.serialized(), headers: [("Cache-Control", "no-store")])
    }

    static func tokenError(_ code: String, _ description: String, status: Int = 400) -> ListenerResponse {
        .json(
            status,
            JSONValue.object([("error", .string(code)), ("error_description", .string(description))]).serialized(),
            headers: [("Cache-Control", "no-store")])
    }

    private func sameResource(_ asked: String) -> Bool {
        let trimmed = asked.hasSuffix("/") ? String(asked.dropLast()) : asked
        return trimmed == resource || trimmed == issuer
    }

    // MARK: - Clients

    struct ClientMetadata {
        var name: String
        var redirectURIs: [String]
    }

    struct ClientRefusal: Error, Equatable {
        var reason: String
    }

    /// The client's metadata document, fetched from its id (an https URL; `http://127.0.0.1:…` while
    /// the server listens on loopback).
    private func clientMetadata(_ id: String) async throws -> ClientMetadata {
        guard let url = URL(string: id), let scheme = url.scheme?.lowercased(), let host = url.host else {
            throw ClientRefusal(reason: "the client_id is not a URL")
        }
        let loopback = scheme == "http" && host == "127.0.0.1" && loopbackClients
        guard scheme == "https" || loopback else {
            throw ClientRefusal(reason: "the client_id must be an https URL (its metadata document)")
        }
        let bytes = try await fetcher.fetch(url, allowLoopback: loopback)
        guard case .object(let members)? = try? BoundedJSONParser.parse(bytes).value else {
            throw ClientRefusal(reason: "the client's metadata document is not a JSON object")
        }
        func member(_ key: String) -> JSONValue? { members.last { $0.0 == key }?.1 }
        guard case .string(let declared)? = member("client_id"), declared == id else {
            throw ClientRefusal(reason: "the metadata document's client_id is not its own URL")
        }
        guard case .array(let uris)? = member("redirect_uris") else {
            throw ClientRefusal(reason: "the metadata document lists no redirect_uris")
        }
        var name = host
        if case .string(let given)? = member("client_name") { name = given }
        return ClientMetadata(
            name: String(TerminalText.sanitize(name).prefix(100)),
            redirectURIs: uris.compactMap { if case .string(let uri) = $0 { return uri } else { return nil } })
    }

    // MARK: - Pages

    private func redirect(_ uri: String, _ parameters: [(String, String?)]) -> ListenerResponse {
        var components = URLComponents(string: uri)
        var items = components?.queryItems ?? []
        for (name, value) in parameters { if let value { items.append(URLQueryItem(name: name, value: value)) } }
        components?.queryItems = items
        return ListenerResponse(
            status: 302, headers: [("Location", components?.string ?? uri), ("Cache-Control", "no-store")])
    }

    private func page(
        _ status: Int, error: String? = nil, authorization: String? = nil, client: String? = nil,
        redirectURI: String? = nil
    ) -> ListenerResponse {
        var body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        body += "<meta name=\"viewport\" content=\"width=device-width\"><title>metrika: connect an assistant</title>"
        body += "<style>body{font:16px system-ui,sans-serif;max-width:32em;margin:3em auto;padding:0 1em}"
        body += "input{font-size:1.2em;padding:.3em}.error{color:#b00020}</style></head><body>"
        body += "<h1>Connect to metrika</h1>"
        if let error { body += "<p class=\"error\">\(XMLEscape.text(error))</p>" }
        if let authorization, let client, let redirectURI {
            let target = URL(string: redirectURI)?.host ?? redirectURI
            body += "<p><strong>\(XMLEscape.text(client))</strong> asks to read this server's Yandex.Metrika reports "
            body += "for you (it will be sent back to \(XMLEscape.text(target))).</p>"
            body += "<p>Type the approval code that <code>metrika mcp token add NAME --oauth</code> printed "
            body += "for you (ask whoever runs this server):</p>"
            body += "<form method=\"post\" action=\"/authorize\">"
            body += "<input type=\"hidden\" name=\"authorization\" value=\"\(XMLEscape.attribute(authorization))\">"
            body += "<input name=\"approval_code\" autocomplete=\"one-time-code\" autofocus required> "
            body += "<button type=\"submit\">Allow</button></form>"
        }
        body += "</body></html>\n"
        return ListenerResponse(
            status: status,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                ("X-Frame-Options", "DENY"),
                ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
            ], body: Array(body.utf8))
    }
}

/// Fetches a client ID metadata document.
package protocol ClientMetadataFetcher: Sendable {
    /// The document's bytes; throws `OAuthServer.ClientRefusal`'s kind of error when it cannot be had.
    func fetch(_ url: URL, allowLoopback: Bool) async throws -> [UInt8]
}

/// The production fetcher: metrika's libcurl transport, at most 5 KB in 5 s, no redirects, and no
/// private, loopback or link-local address (unless `allowLoopback`, for a loopback-only server's tests).
package struct CurlClientMetadataFetcher: ClientMetadataFetcher {
    package let transport: any HTTPTransport
    /// The addresses of a host name, for the check before the fetch (a test's stand-in answers otherwise
    /// than libcurl's own lookup: a rebinding name).
    private let resolveHost: @Sendable (String) async throws -> [String]

    package init(
        transport: any HTTPTransport,
        resolve: @escaping @Sendable (String) async throws -> [String] = {
            try await CurlClientMetadataFetcher.resolve($0)
        }
    ) {
        self.transport = transport
        self.resolveHost = resolve
    }

    package func fetch(_ url: URL, allowLoopback: Bool) async throws -> [UInt8] {
        guard let host = url.host else { throw OAuthServer.ClientRefusal(reason: "no host") }
        let allowed: @Sendable (String) -> Bool = { address in
            Self.isPublic(address) || (allowLoopback && address == "127.0.0.1")
        }
        let addresses = try await resolveHost(host)
        guard !addresses.isEmpty else { throw OAuthServer.ClientRefusal(reason: "\(host) does not resolve") }
        let privateAddress = OAuthServer.ClientRefusal(reason: "\(host) is a private or local address")
        guard addresses.allSatisfy(allowed) else { throw privateAddress }
        // The check again on the address libcurl connects to, after its own lookup (DNS rebinding).
        let refused = Mutex(false)
        var request = HTTPRequest(
            url: url, headers: ["Accept": "application/json"], timeout: 5, maxResponseBytes: 5 * 1024)
        request.allowsAddress = { address in
            if allowed(address) { return true }
            refused.withLock { $0 = true }
            return false
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            if refused.withLock({ $0 }) { throw privateAddress }
            throw OAuthServer.ClientRefusal(reason: "its metadata document could not be fetched (5 KB in 5 s at most)")
        }
        guard response.status == 200 else {
            throw OAuthServer.ClientRefusal(reason: "its metadata document answered HTTP \(response.status)")
        }
        return Array(response.body)
    }

    /// The addresses of `host` (off the cooperative threads: getaddrinfo blocks).
    package static func resolve(_ host: String) async throws -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var list: UnsafeMutablePointer<addrinfo>?
                guard getaddrinfo(host, nil, &hints, &list) == 0 else { return continuation.resume(returning: []) }
                defer { freeaddrinfo(list) }
                var found: [String] = []
                var entry = list
                while let current = entry {
                    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                    if current.pointee.ai_family == AF_INET {
                        var address = current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                            $0.pointee.sin_addr
                        }
                        inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count))
                    } else if current.pointee.ai_family == AF_INET6 {
                        var address = current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                            $0.pointee.sin6_addr
                        }
                        inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
                    }
                    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if !text.isEmpty { found.append(text) }
                    entry = current.pointee.ai_next
                }
                continuation.resume(returning: found)
            }
        }
    }

    /// Whether an address is a public one (not private, loopback, link-local, CGNAT, unique-local…).
    static func isPublic(_ address: String) -> Bool {
        if address.contains(":") {
            let lower = address.lowercased()
            if lower == "::1" || lower == "::" { return false }
            if lower.hasPrefix("fe8") || lower.hasPrefix("fe9") || lower.hasPrefix("fea") || lower.hasPrefix("feb") {
                return false
            }
            if lower.hasPrefix("fc") || lower.hasPrefix("fd") { return false }
            if lower.hasPrefix("::ffff:") { return isPublic(String(lower.dropFirst(7))) }
            return true
        }
        let parts = address.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return false }
        switch (parts[0], parts[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168), (255, _): return false
        case (172, 16...31), (100, 64...127): return false
        case (224...239, _): return false
        default: return true
        }
    }
}
