import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSystem
import Synchronization

/// The composition root under every entry point (the CLI's commands, the MCP server, the bot): from
/// the world's seams and the run's selections it builds the API client (URL, token and its keeper,
/// timeout, logging), the profile, the default counters, the history database (`Services+History`),
/// the alert settings and deliverers (`Services+Alerts`) and Telegram (`Services+Telegram`). An entry
/// point builds one per run; the config file is read at most once per run, through `configFile()`.
package final class Services: Sendable {
    package let world: ServicesWorld
    package let selection: ServicesSelection
    /// What a run fills in later, behind one lock.
    private struct State {
        /// The config file's one reading (its content or its error), kept for the rest of the run.
        var configReading: Result<ConfigFile?, any Error>?
        /// How often the config file was read: at most once (tests check).
        var configReads = 0
        /// A run over several profiles: its routes and what they learnt, built once per run, so that
        /// every client of the run reads the profiles' counters lists at most once.
        var routing: (routing: ProfileRouting, token: ResolvedToken, keeper: TokenKeeper)?
    }
    private let state = Mutex(State())
    /// The history databases this run opened, by path (`Services+History.swift`): one connection per
    /// file per process, which every command step and every MCP tool call shares.
    let histories = Mutex<[String: HistoryStoreHandle]>([:])

    package init(world: ServicesWorld, selection: ServicesSelection) {
        self.world = world
        self.selection = selection
    }

    /// How often the config file was read: at most once (tests check).
    package var configReads: Int { state.withLock { $0.configReads } }

    /// `$XDG_CONFIG_HOME/metrika/config.json`, read on first use and kept: nil when there is none;
    /// an unusable file throws the same error every time it is asked for.
    package func configFile() throws -> ConfigFile? {
        let environment = world.environment
        let reading = state.withLock { state in
            if state.configReading == nil {
                state.configReads += 1
                state.configReading = Result { try ConfigFile.read(environment: environment) }
            }
            return state.configReading!
        }
        return try reading.get()
    }

    /// METRIKA_API_URL, else the profile's `api_url`, else the default; anything that isn't an
    /// http(s) URL, or is plain http to another machine, is a configuration error.
    package func apiBaseURL() throws -> URL {
        if let variable = world.environment[EnvironmentSettings.apiURLVariable], !variable.isEmpty {
            return try secretBearingBaseURL(
                variable, variable: EnvironmentSettings.apiURLVariable, fallback: MetrikaClient.defaultBaseURL,
                secret: "the OAuth token")
        }
        if let profile = try profile(), let url = profile.apiURL {
            return try secretBearingBaseURL(
                url,
                variable:
                    "The api_url of profile '\(profile.name)' in \(ConfigFile.path(environment: world.environment))",
                fallback: MetrikaClient.defaultBaseURL, secret: "the OAuth token")
        }
        return try Self.baseURL(
            nil, variable: EnvironmentSettings.apiURLVariable, fallback: MetrikaClient.defaultBaseURL)
    }

    // MARK: - Profiles and the config file

    /// The profile `--profile NAME` (else METRIKA_PROFILE) chooses from the config file; nil when
    /// neither names one. An unknown profile or an unusable config file is exit 78.
    /// With several profiles (`all`, `A,B`): the first of them, whose settings (API URL, OAuth app,
    /// Telegram) the run takes.
    package func profile() throws -> ConfigFile.Profile? {
        try selectedProfiles()?.first
    }

    /// The profiles `--profile` (else METRIKA_PROFILE) names: one name, `all` (every profile of the
    /// config file, in its order) or `NAME,NAME`; nil when neither names any. Unknown names are exit 78.
    package func selectedProfiles() throws -> [ConfigFile.Profile]? {
        guard let (text, selector) = profileSelection() else { return nil }
        guard !text.isEmpty else { throw UsageError("\(selector) needs a profile name") }
        if text == "all" {
            let config = try configFile()
            let profiles = (config?.profileOrder ?? []).compactMap { config?.profiles[$0] }
            guard !profiles.isEmpty else {
                throw ConfigError.unknownProfile(
                    name: text, selector: selector, path: ConfigFile.path(environment: world.environment), known: [])
            }
            return profiles
        }
        var names: [String] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            if !names.contains(name) { names.append(name) }
        }
        guard !names.isEmpty else { throw UsageError("\(selector) needs a profile name") }
        return try names.map { try profile(named: $0, selectedBy: selector) }
    }

    /// Whether the run spans profiles (`--profile all` or `A,B`): counters are read by their owners.
    package func spansProfiles() throws -> Bool {
        guard let (text, _) = profileSelection() else { return false }
        return text == "all" || text.contains(",")
    }

    /// The text naming the profiles and what gave it.
    private func profileSelection() -> (text: String, selector: String)? {
        if let given = selection.profile {
            return (given.name.trimmingCharacters(in: .whitespaces), given.selectedBy)
        }
        if let name = world.environment[EnvironmentSettings.profileVariable]?.trimmingCharacters(in: .whitespaces),
            !name.isEmpty
        {
            return (name, EnvironmentSettings.profileVariable)
        }
        return nil
    }

    /// The profile `name` of the config file; an unknown one is exit 78 naming the known ones.
    private func profile(named name: String, selectedBy selector: String) throws -> ConfigFile.Profile {
        try ConfigFile.profile(name, selectedBy: selector, in: try configFile(), environment: world.environment)
    }

    /// The active profile for display: `agency (--profile)`, or nil.
    package func profileDescription() throws -> String? {
        guard let profile = try profile() else { return nil }
        return
            "\(profile.name) (\(selection.profile?.selectedBy ?? EnvironmentSettings.profileVariable), \(ConfigFile.path(environment: world.environment)))"
    }

    /// The token file login and logout write and delete: `--token-file`, else the profile's, else the
    /// default one. `explicit` when the user named it (its directory is then not narrowed to 0700).
    package func tokenFileToWrite() throws -> (file: TokenFile, explicit: Bool) {
        if let path = selection.tokenFile { return (TokenFile(path: path), true) }
        if try spansProfiles() {
            throw UsageError("sign in one profile at a time: name one profile, not several or all")
        }
        if let profile = try profile() {
            return (
                TokenFile(path: TokenSource.profileTokenPath(profile, environment: world.environment)),
                profile.tokenFile != nil
            )
        }
        return (TokenFile.defaultFile(environment: world.environment), false)
    }

    /// The counters to use when no `--counter` is given: METRIKA_COUNTER, else the profile's
    /// `counter`, else the config file's; nil when none is set. Also says where they came from.
    package func defaultCounters() throws -> (ids: [String], source: String)? {
        if let text = world.environment[ConfigError.counterVariable]?.trimmingCharacters(in: .whitespaces),
            !text.isEmpty
        {
            // Checked here, where the variable can be named: the command would blame --counter.
            let ids = text.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard ids.allSatisfy({ Int($0).map { $0 > 0 } ?? false }) else {
                throw ConfigError.badCounterVariable(value: text)
            }
            return (ids, ConfigError.counterVariable)
        }
        if let profiles = try selectedProfiles(), profiles.count > 1 {
            var ids: [Int] = []
            for id in profiles.flatMap({ $0.counters ?? [] }) where !ids.contains(id) { ids.append(id) }
            if !ids.isEmpty {
                return (ids.map(String.init), "profiles \(profiles.map { "'\($0.name)'" }.joined(separator: ", "))")
            }
        } else if let profile = try profile(), let ids = profile.counters {
            return (ids.map(String.init), "profile '\(profile.name)'")
        }
        if let config = try configFile(), let ids = config.counters {
            return (ids.map(String.init), "the config file \(config.path)")
        }
        return nil
    }

    /// A base URL of the API or the OAuth server (both carry secrets: plain http only to loopback,
    /// see `PlainHTTPPolicy`).
    package func secretBearingBaseURL(_ value: String?, variable: String, fallback: String, secret: String) throws
        -> URL
    {
        let url = try Self.baseURL(value, variable: variable, fallback: fallback)
        try PlainHTTPPolicy.check(url, setting: variable, secret: secret, environment: world.environment)
        return url
    }

    package static func baseURL(_ value: String?, variable: String, fallback: String) throws -> URL {
        let text = (value?.isEmpty == false ? value! : fallback).trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw ConfigError.badBaseURL(variable: variable, value: text, problem: .notHTTP)
        }
        guard url.query == nil, url.user == nil, url.password == nil else {
            // The case keeps the URL without its credentials and query: an error never holds a secret.
            var plain = URLComponents(url: url, resolvingAgainstBaseURL: false)
            plain?.user = nil
            plain?.password = nil
            plain?.query = nil
            throw ConfigError.badBaseURL(variable: variable, value: plain?.string ?? "", problem: .notPlain)
        }
        if let port = url.port, !(1...65_535).contains(port) {
            throw ConfigError.badBaseURL(variable: variable, value: text, problem: .port(port))
        }
        return url
    }

    /// Seconds per request: METRIKA_TIMEOUT, default 30.
    package func requestTimeout() throws -> Double {
        guard let text = world.environment[EnvironmentSettings.timeoutVariable], !text.isEmpty else { return 30 }
        guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
            throw ConfigError.badVariable(
                variable: EnvironmentSettings.timeoutVariable, value: text,
                expected: "a number of seconds above 0 and at most 600")
        }
        return seconds
    }

    /// The largest API answer accepted, in bytes after decompression: METRIKA_MAX_RESPONSE (a number of
    /// bytes, or with a K, M or G suffix for KiB, MiB, GiB), default 64 MiB.
    package func maxResponseBytes() throws -> Int {
        guard
            let text = world.environment[EnvironmentSettings.maxResponseVariable]?.trimmingCharacters(in: .whitespaces),
            !text.isEmpty
        else {
            return HTTPRequest.defaultMaxResponseBytes
        }
        guard let bytes = Self.parseByteSize(text), bytes >= 1 << 10, bytes <= 1 << 32 else {
            throw ConfigError.badVariable(
                variable: EnvironmentSettings.maxResponseVariable, value: text,
                expected: "a size between 1K and 4G (bytes, or with K, M, G)")
        }
        return bytes
    }

    /// `65536`, `512K`, `64M`, `1G` (also `64MiB`, `64MB`: binary units either way); nil for anything else.
    package static func parseByteSize(_ text: String) -> Int? {
        var digits = Substring(text.uppercased())
        var unit = 1
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            break
        }
        if let last = digits.last, let shift = ["K": 10, "M": 20, "G": 30][String(last)] {
            unit = 1 << shift
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(digits)
        else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
        return overflow ? nil : bytes
    }

    /// The request log of `--verbose`, or nil.
    package var logger: (@Sendable (String) -> Void)? {
        guard selection.verbose else { return nil }
        let activity = world.activity
        return { line in activity.note(line) }
    }

    /// The token, resolved per `--token-file`, METRIKA_TOKEN, the profile's token file, the token file.
    package func token() async throws -> ResolvedToken {
        let resolved = try await TokenSource.resolve(
            tokenFile: selection.tokenFile, profile: try profile(), environment: world.environment)
        world.secrets.add(resolved.token)
        world.secrets.add(resolved.stored?.refreshToken)
        return resolved
    }

    /// A ready Metrika API client. Its transports (JSON calls and streamed log parts alike) share one
    /// `TokenKeeper`: the token is renewed when it is close to expiry and once when the API rejects it,
    /// written back to the token file, and every later request of either kind carries the new one.
    package func client() async throws -> MetrikaClient {
        let url = try apiBaseURL()
        let timeout = try requestTimeout()
        let limit = try maxResponseBytes()
        let routes = try await profileRoutes(timeout: timeout)
        let token: ResolvedToken
        let keeper: TokenKeeper
        if let routes {
            (token, keeper) = (routes.token, routes.keeper)
        } else {
            token = try await self.token()
            keeper = try tokenKeeper(for: token, timeout: timeout)
        }
        var client = MetrikaClient(
            baseURL: url, token: token.token,
            transport: TokenRefreshingTransport(base: world.transport, keeper: keeper),
            streamingTransport: TokenRefreshingStreamingTransport(base: world.streamingTransport, keeper: keeper),
            requestTimeout: timeout,
            sleep: world.sleep, now: world.now, log: logger, retryWait: world.retryWait
        )
        client.maxResponseBytes = limit
        if routes != nil {
            client.routing = state.withLock { $0.routing?.routing }
        } else if let profile = try profile() {
            client.login = profile.login ?? profile.name
            client.ulogin = profile.ulogin
        }
        client.gate = try quotaGate()
        return client
    }

    /// A run over several profiles: one route per profile, each with its own token (its token file;
    /// METRIKA_TOKEN is one login's and does not apply), keeper, `ulogin` and ledger login. Nil for a
    /// run of one token.
    private func profileRoutes(timeout: Double) async throws -> (
        routes: [APIRoute], token: ResolvedToken, keeper: TokenKeeper
    )? {
        guard try spansProfiles(), let profiles = try selectedProfiles() else { return nil }
        if let kept = state.withLock({ $0.routing }) { return (kept.routing.routes, kept.token, kept.keeper) }
        var environment = world.environment
        environment[EnvironmentSettings.tokenVariable] = nil
        var routes: [APIRoute] = []
        var first: (ResolvedToken, TokenKeeper)?
        for profile in profiles {
            let resolved = try await TokenSource.resolve(tokenFile: nil, profile: profile, environment: environment)
            world.secrets.add(resolved.token)
            world.secrets.add(resolved.stored?.refreshToken)
            let keeper = try tokenKeeper(for: resolved, timeout: timeout)
            if first == nil { first = (resolved, keeper) }
            routes.append(
                APIRoute(
                    profile: profile.name, login: profile.login ?? profile.name, ulogin: profile.ulogin,
                    transport: TokenRefreshingTransport(base: world.transport, keeper: keeper),
                    streamingTransport: TokenRefreshingStreamingTransport(
                        base: world.streamingTransport, keeper: keeper), token: resolved.token))
        }
        guard let first else { return nil }
        let built = (routing: ProfileRouting(routes: routes), token: first.0, keeper: first.1)
        let kept = state.withLock { state in
            if state.routing == nil { state.routing = built }
            return state.routing!
        }
        return (kept.routing.routes, kept.token, kept.keeper)
    }

    /// METRIKA_OAUTH_URL or the default; anything that isn't an http(s) URL, or is plain http to
    /// another machine, is a configuration error.
    package func oauthBaseURL() throws -> URL {
        try secretBearingBaseURL(
            world.environment[EnvironmentSettings.oauthURLVariable], variable: EnvironmentSettings.oauthURLVariable,
            fallback: OAuthClient.defaultBaseURL, secret: "the app's secret and the tokens")
    }

    /// The app's credentials by the one precedence (`ClientCredentials.resolve`): `--client-id` /
    /// `--client-secret` (login's options), METRIKA_CLIENT_ID / METRIKA_CLIENT_SECRET, the profile, the
    /// config file, and last the client id in the token file (`tokenClientID`). Login, renewal, `auth
    /// status` and logout all ask here. An unusable config file or unknown profile throws (exit 78).
    package func clientCredentials(tokenClientID: String?) throws -> ClientCredentials? {
        let credentials = ClientCredentials.resolve(
            clientID: selection.clientID, clientSecret: selection.clientSecret, environment: world.environment,
            profile: try profile(), config: try configFile(), tokenClientID: tokenClientID
        )
        world.secrets.add(credentials?.clientSecret)
        return credentials
    }

    /// The credentials that can renew or revoke `stored` (its issuing app's id and secret), or why not.
    package func credentialsForToken(_ stored: StoredToken?) throws -> Result<ClientCredentials, AppCredentialsProblem>
    {
        ClientCredentials.forToken(
            issuer: stored?.clientID, resolved: try clientCredentials(tokenClientID: stored?.clientID))
    }

    /// The keeper of the run's token, which both API transports consult. An unusable METRIKA_OAUTH_URL
    /// stops the command (exit 78) like any bad setting; missing app credentials only keep the keeper
    /// from renewing (it says why when the token is close to expiry).
    package func tokenKeeper(for token: ResolvedToken, timeout: Double) throws -> TokenKeeper {
        let oauth = OAuthClient(
            baseURL: try oauthBaseURL(), transport: world.transport, requestTimeout: timeout, now: world.now,
            log: logger)
        var credentials: ClientCredentials?
        var problem: AppCredentialsProblem?
        if token.stored != nil {
            switch try credentialsForToken(token.stored) {
            case .success(let found): credentials = found
            case .failure(let reason): problem = reason
            }
        }
        let activity = world.activity
        return TokenKeeper(
            resolved: token, oauth: oauth, credentials: credentials, credentialsProblem: problem, now: world.now,
            warn: { activity.note($0) }, log: logger, naming: activity.naming
        )
    }
}
