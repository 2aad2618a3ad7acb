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

    /// The request log of `--verbose`, or nil.
    var logger: (@Sendable (String) -> Void)? {
        guard options.flag("verbose") else { return nil }
        let sink = context.stderr
        return { line in sink.write(line + "\n") }
    }

    /// The token, resolved per `--token-file`, METRIKA_TOKEN, token file.
    func token() throws -> ResolvedToken {
        try TokenSource.resolve(tokenFile: options.value("token-file"), environment: context.environment)
    }

    /// A ready Metrika API client.
    func client() throws -> MetrikaClient {
        let url = try apiBaseURL()
        let timeout = try requestTimeout()
        let token = try token()
        return MetrikaClient(
            baseURL: url, token: token.token, transport: context.transport, requestTimeout: timeout,
            sleep: context.sleep, now: context.now, log: logger
        )
    }
}
