import Foundation
import MetrikaKit

/// Builds what commands need from the environment: the API client (URL, token, timeout, logging).
struct Session {
    let context: CLIContext
    let options: ParsedOptions

    /// METRIKA_API_URL or the default; anything that isn't an http(s) URL is a configuration error.
    func apiBaseURL() throws -> URL {
        try Self.baseURL(context.environment["METRIKA_API_URL"], variable: "METRIKA_API_URL", fallback: MetrikaClient.defaultBaseURL)
    }

    static func baseURL(_ value: String?, variable: String, fallback: String) throws -> URL {
        let text = (value?.isEmpty == false ? value! : fallback).trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw SimpleFailure("\(variable) '\(text)' is not an http(s) URL. Set it like https://api-metrika.yandex.net or unset it.", exitCode: ExitCode.config)
        }
        guard url.query == nil, url.user == nil, url.password == nil else {
            throw SimpleFailure("\(variable) must be a plain base URL without query or credentials.", exitCode: ExitCode.config)
        }
        return url
    }

    /// Seconds per request: METRIKA_TIMEOUT, default 30.
    func requestTimeout() throws -> Double {
        guard let text = context.environment["METRIKA_TIMEOUT"], !text.isEmpty else { return 30 }
        guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
            throw SimpleFailure("METRIKA_TIMEOUT must be a number of seconds between 0 and 600, not '\(text)'.", exitCode: ExitCode.config)
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
            throw SimpleFailure("METRIKA_MAX_RESPONSE must be a size between 1K and 4G (bytes, or with K, M, G), not '\(text)'.", exitCode: ExitCode.config)
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
        return number * unit
    }

    /// The request log of `--verbose`, or nil.
    var logger: (@Sendable (String) -> Void)? {
        guard options.flag("verbose") else { return nil }
        let output = context
        return { line in output.note(line) }
    }

    /// The token, resolved per `--token-file`, METRIKA_TOKEN, token file.
    func token() throws -> ResolvedToken {
        let resolved = try TokenSource.resolve(tokenFile: options.value("token-file"), environment: context.environment)
        context.secrets.add(resolved.token)
        context.secrets.add(resolved.stored?.refreshToken)
        return resolved
    }

    /// A ready Metrika API client. Its transport renews the token when it is close to expiry and once
    /// when the API rejects it (see `TokenKeeper`), writing the new one back to the token file.
    func client() throws -> MetrikaClient {
        let url = try apiBaseURL()
        let timeout = try requestTimeout()
        let limit = try maxResponseBytes()
        let token = try token()
        var client = MetrikaClient(
            baseURL: url, token: token.token, transport: renewingTransport(for: token, timeout: timeout), requestTimeout: timeout,
            sleep: context.sleep, now: context.now, log: logger, retryWait: { [context] in context.showRetryWait($0) }
        )
        client.maxResponseBytes = limit
        return client
    }

    /// METRIKA_OAUTH_URL or the default; anything that isn't an http(s) URL is a configuration error.
    func oauthBaseURL() throws -> URL {
        try Self.baseURL(context.environment["METRIKA_OAUTH_URL"], variable: "METRIKA_OAUTH_URL", fallback: OAuthClient.defaultBaseURL)
    }

    /// The API transport wrapped in token renewal. Renewal is best effort: an unusable OAuth URL or
    /// config file only disables it (the command still runs with the token it has).
    func renewingTransport(for token: ResolvedToken, timeout: Double) -> any HTTPTransport {
        let oauth = (try? oauthBaseURL()).map {
            OAuthClient(baseURL: $0, transport: context.transport, requestTimeout: timeout, now: context.now, log: logger)
        }
        let credentials = (try? ClientCredentials.forIssuer(token.stored?.clientID, environment: context.environment)) ?? nil
        let output = context
        let keeper = TokenKeeper(resolved: token, oauth: oauth, credentials: credentials, now: context.now, warn: { output.note($0) }, log: logger)
        return TokenRefreshingTransport(base: context.transport, keeper: keeper)
    }
}
