import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaSystem
import Synchronization

/// Builds what commands need from the environment: the API client (URL, token, timeout, logging),
/// the profile and the default counters. `CLI.dispatch` builds one per run and hands it to the
/// command; the config file is read at most once per run, through `configFile()`.
final class Session: Sendable {
    let context: CLIContext
    /// What a run may change or fill in later, behind one lock.
    private struct State {
        /// The command's options (with the default counter filled in, see `useCounters`).
        var options: ParsedOptions
        /// The config file's one reading (its content or its error), kept for the rest of the run.
        var configReading: Result<ConfigFile?, any Error>?
        /// How often the config file was read: at most once (tests check).
        var configReads = 0
    }
    private let state: Mutex<State>
    /// The history databases this run opened, by path (`Session+History.swift`): one connection per
    /// file per process, which every command step and every MCP tool call shares.
    let histories = Mutex<[String: HistoryStoreHandle]>([:])

    init(context: CLIContext, options: ParsedOptions) {
        self.context = context
        self.state = Mutex(State(options: options))
    }

    /// The command's options (with the default counter filled in, see `useCounters`).
    var options: ParsedOptions { state.withLock { $0.options } }

    /// How often the config file was read: at most once (tests check).
    var configReads: Int { state.withLock { $0.configReads } }

    /// Fills in `--counter` from a default (METRIKA_COUNTER, the profile, the config file).
    func useCounters(_ ids: [String], from source: String) {
        state.withLock { state in
            state.options.set(.counter, to: ids)
            state.options.counterDefaultSource = source
        }
    }

    /// `$XDG_CONFIG_HOME/metrika/config.json`, read on first use and kept: nil when there is none;
    /// an unusable file throws the same error every time it is asked for.
    func configFile() throws -> ConfigFile? {
        let environment = context.environment
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
    func apiBaseURL() throws -> URL {
        if let variable = context.environment["METRIKA_API_URL"], !variable.isEmpty {
            return try secretBearingBaseURL(variable, variable: "METRIKA_API_URL", fallback: MetrikaClient.defaultBaseURL, secret: "the OAuth token")
        }
        if let profile = try profile(), let url = profile.apiURL {
            return try secretBearingBaseURL(url, variable: "The api_url of profile '\(profile.name)' in \(ConfigFile.path(environment: context.environment))", fallback: MetrikaClient.defaultBaseURL, secret: "the OAuth token")
        }
        return try Self.baseURL(nil, variable: "METRIKA_API_URL", fallback: MetrikaClient.defaultBaseURL)
    }

    // MARK: - Profiles and the config file

    /// The profile `--profile NAME` (else METRIKA_PROFILE) chooses from the config file; nil when
    /// neither names one. An unknown profile or an unusable config file is exit 78.
    func profile() throws -> ConfigFile.Profile? {
        if let name = options[.profile] {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError("--profile needs a profile name") }
            return try profile(named: name, selectedBy: "--profile")
        }
        if let name = context.environment["METRIKA_PROFILE"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty {
            return try profile(named: name, selectedBy: "METRIKA_PROFILE")
        }
        return nil
    }

    /// The profile `name` of the config file; an unknown one is exit 78 naming the known ones.
    private func profile(named name: String, selectedBy selector: String) throws -> ConfigFile.Profile {
        try ConfigFile.profile(name, selectedBy: selector, in: try configFile(), environment: context.environment)
    }

    /// The active profile for display: `agency (--profile)`, or nil.
    func profileDescription() throws -> String? {
        guard let profile = try profile() else { return nil }
        return "\(profile.name) (\(options[.profile] != nil ? "--profile" : "METRIKA_PROFILE"), \(ConfigFile.path(environment: context.environment)))"
    }

    /// The token file login and logout write and delete: `--token-file`, else the profile's, else the
    /// default one. `explicit` when the user named it (its directory is then not narrowed to 0700).
    func tokenFileToWrite() throws -> (file: TokenFile, explicit: Bool) {
        if let path = options[.tokenFile] { return (TokenFile(path: path), true) }
        if let profile = try profile() { return (TokenFile(path: TokenSource.profileTokenPath(profile, environment: context.environment)), profile.tokenFile != nil) }
        return (TokenFile.defaultFile(environment: context.environment), false)
    }

    /// The counters to use when no `--counter` is given: METRIKA_COUNTER, else the profile's
    /// `counter`, else the config file's; nil when none is set. Also says where they came from.
    func defaultCounters() throws -> (ids: [String], source: String)? {
        if let text = context.environment["METRIKA_COUNTER"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            // Checked here, where the variable can be named: the command would blame --counter.
            let ids = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard ids.allSatisfy({ Int($0).map { $0 > 0 } ?? false }) else {
                throw ConfigError.badCounterVariable(value: text)
            }
            return (ids, "METRIKA_COUNTER")
        }
        if let profile = try profile(), let ids = profile.counters {
            return (ids.map(String.init), "profile '\(profile.name)'")
        }
        if let config = try configFile(), let ids = config.counters {
            return (ids.map(String.init), "the config file \(config.path)")
        }
        return nil
    }

    /// A base URL of the API or the OAuth server (both carry secrets: plain http only to loopback,
    /// see `PlainHTTPPolicy`).
    func secretBearingBaseURL(_ value: String?, variable: String, fallback: String, secret: String) throws -> URL {
        let url = try Self.baseURL(value, variable: variable, fallback: fallback)
        try PlainHTTPPolicy.check(url, setting: variable, secret: secret, environment: context.environment)
        return url
    }

    static func baseURL(_ value: String?, variable: String, fallback: String) throws -> URL {
        let text = (value?.isEmpty == false ? value! : fallback).trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
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
    func requestTimeout() throws -> Double {
        guard let text = context.environment["METRIKA_TIMEOUT"], !text.isEmpty else { return 30 }
        guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
            throw ConfigError.badVariable(variable: "METRIKA_TIMEOUT", value: text, expected: "a number of seconds above 0 and at most 600")
        }
        return seconds
    }

    /// The largest API answer accepted, in bytes after decompression: METRIKA_MAX_RESPONSE (a number of
    /// bytes, or with a K, M or G suffix for KiB, MiB, GiB), default 64 MiB.
    func maxResponseBytes() throws -> Int {
        guard let text = context.environment["METRIKA_MAX_RESPONSE"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return HTTPRequest.defaultMaxResponseBytes
        }
        guard let bytes = Self.parseByteSize(text), bytes >= 1 << 10, bytes <= 1 << 32 else {
            throw ConfigError.badVariable(variable: "METRIKA_MAX_RESPONSE", value: text, expected: "a size between 1K and 4G (bytes, or with K, M, G)")
        }
        return bytes
    }

    /// `65536`, `512K`, `64M`, `1G` (also `64MiB`, `64MB`: binary units either way); nil for anything else.
    static func parseByteSize(_ text: String) -> Int? {
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
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits) else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
        return overflow ? nil : bytes
    }

    /// The request log of `--verbose`, or nil.
    var logger: (@Sendable (String) -> Void)? {
        guard options[.verbose] else { return nil }
        let output = context
        return { line in output.note(line) }
    }

    /// The token, resolved per `--token-file`, METRIKA_TOKEN, the profile's token file, the token file.
    func token() async throws -> ResolvedToken {
        let resolved = try await TokenSource.resolve(tokenFile: options[.tokenFile], profile: try profile(), environment: context.environment)
        context.secrets.add(resolved.token)
        context.secrets.add(resolved.stored?.refreshToken)
        return resolved
    }

    /// A ready Metrika API client. Its transports (JSON calls and streamed log parts alike) share one
    /// `TokenKeeper`: the token is renewed when it is close to expiry and once when the API rejects it,
    /// written back to the token file, and every later request of either kind carries the new one.
    func client() async throws -> MetrikaClient {
        let url = try apiBaseURL()
        let timeout = try requestTimeout()
        let limit = try maxResponseBytes()
        let token = try await token()
        let keeper = try tokenKeeper(for: token, timeout: timeout)
        var client = MetrikaClient(
            baseURL: url, token: token.token, transport: TokenRefreshingTransport(base: context.transport, keeper: keeper),
            streamingTransport: TokenRefreshingStreamingTransport(base: context.streamingTransport, keeper: keeper), requestTimeout: timeout,
            sleep: context.sleep, now: context.now, log: logger, retryWait: { [context] in context.showRetryWait($0) }
        )
        client.maxResponseBytes = limit
        return client
    }

    /// METRIKA_OAUTH_URL or the default; anything that isn't an http(s) URL, or is plain http to
    /// another machine, is a configuration error.
    func oauthBaseURL() throws -> URL {
        try secretBearingBaseURL(context.environment["METRIKA_OAUTH_URL"], variable: "METRIKA_OAUTH_URL", fallback: OAuthClient.defaultBaseURL, secret: "the app's secret and the tokens")
    }

    /// The app's credentials by the one precedence (`ClientCredentials.resolve`): `--client-id` /
    /// `--client-secret` (login's options), METRIKA_CLIENT_ID / METRIKA_CLIENT_SECRET, the profile, the
    /// config file, and last the client id in the token file (`tokenClientID`). Login, renewal, `auth
    /// status` and logout all ask here. An unusable config file or unknown profile throws (exit 78).
    func clientCredentials(tokenClientID: String?) throws -> ClientCredentials? {
        let credentials = ClientCredentials.resolve(
            clientID: options[.clientID], clientSecret: options[.clientSecret], environment: context.environment,
            profile: try profile(), config: try configFile(), tokenClientID: tokenClientID
        )
        context.secrets.add(credentials?.clientSecret)
        return credentials
    }

    /// The credentials that can renew or revoke `stored` (its issuing app's id and secret), or why not.
    func credentialsForToken(_ stored: StoredToken?) throws -> Result<ClientCredentials, AppCredentialsProblem> {
        ClientCredentials.forToken(issuer: stored?.clientID, resolved: try clientCredentials(tokenClientID: stored?.clientID))
    }

    /// The keeper of the run's token, which both API transports consult. An unusable METRIKA_OAUTH_URL
    /// stops the command (exit 78) like any bad setting; missing app credentials only keep the keeper
    /// from renewing (it says why when the token is close to expiry).
    func tokenKeeper(for token: ResolvedToken, timeout: Double) throws -> TokenKeeper {
        let oauth = OAuthClient(baseURL: try oauthBaseURL(), transport: context.transport, requestTimeout: timeout, now: context.now, log: logger)
        var credentials: ClientCredentials?
        var problem: AppCredentialsProblem?
        if token.stored != nil {
            switch try credentialsForToken(token.stored) {
            case .success(let found): credentials = found
            case .failure(let reason): problem = reason
            }
        }
        let output = context
        return TokenKeeper(
            resolved: token, oauth: oauth, credentials: credentials, credentialsProblem: problem, now: context.now,
            warn: { output.note($0) }, log: logger, naming: context.naming
        )
    }
}
