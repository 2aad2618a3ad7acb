import Foundation
import MetrikaAPI
import MetrikaModel

/// `metrika auth status`: which token metrika would use, from where, until when, and whether the
/// API accepts it. It only reads: it never renews or rewrites the token.
enum AuthStatusCommand: Command {
    static let name = "auth status"
    static let summary = "Show where the token comes from, when it expires, and whether the API accepts it"
    static let synopses: [[UsageTerm]] = [[.optional(.tokenFile), .optional(.profile)]]
    static let discussion = """
        Shows the active profile (--profile, else METRIKA_PROFILE) and where the token is kept: a token
        file, the system keyring (noted in a token file), or METRIKA_TOKEN.

        Exit codes: 0 the API accepts the token, 77 not signed in or the token is rejected,
        69 the API or the keyring could not be reached, 78 a bad config file or unknown profile.
        """
    static let options: [OptionSpec] = TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        guard options.positionals.isEmpty else { throw UsageError("auth status takes no arguments") }
        let profile = try session.services.profileDescription()
        let resolved = try await session.services.token()
        let now = context.now()
        var rows: [(String, String)] = [
            ("Profile", profile ?? "none (--profile / METRIKA_PROFILE)"), ("Source", resolved.source)
        ]
        rows.append(("Token", TokenMask.mask(resolved.token)))
        if let stored = resolved.stored {
            if stored.obtainedAt.timeIntervalSince1970 > 0 {
                rows.append(("Obtained", StoredToken.timestamp(stored.obtainedAt)))
            }
            rows.append(("Expires", SignInText.expiry(stored.expiresAt, now: now)))
            if let clientID = stored.clientID { rows.append(("Client id", clientID)) }
            rows.append(("Renewal", try renewal(stored, session: session)))
        } else {
            rows.append(("Expires", "unknown (tokens in METRIKA_TOKEN carry no expiry)"))
        }
        if resolved.path == nil, TokenFile.defaultFile(environment: context.environment).exists {
            rows.append(
                (
                    "Note",
                    "the token file \(TokenSource.defaultPath(environment: context.environment)) is ignored while METRIKA_TOKEN is set"
                ))
        }

        let client = MetrikaClient(
            baseURL: try session.services.apiBaseURL(), token: resolved.token, transport: context.transport,
            requestTimeout: try session.services.requestTimeout(), sleep: context.sleep, now: context.now,
            log: session.services.logger
        )
        var code = ExitCode.ok
        do {
            let count = try await client.checkToken()
            rows.append(("API", "accepts the token (\(count) counter\(count == 1 ? "" : "s") visible)"))
        } catch let error as APIError {
            code = error.exitCode
            switch error {
            case .invalidToken, .unauthorized:
                rows.append(("API", "rejects the token: sign in again with `metrika login`"))
            default:
                rows.append(("API", "not checked: \(error.message(.cli))"))
            }
        }
        let out = context.stdout
        out.write(SignInText.aligned(rows))
        return code
    }

    /// Whether the next command can renew the token by itself, and if not, why: the same credentials
    /// the renewal itself would use (`Services.credentialsForToken`).
    static func renewal(_ stored: StoredToken, session: Session) throws -> String {
        guard stored.refreshToken != nil else {
            return "not possible (no refresh token; run `metrika login` before it expires)"
        }
        switch try session.services.credentialsForToken(stored) {
        case .success(let credentials):
            return
                "automatic within 30 days of expiry (app \(credentials.clientID), secret from \(credentials.secretSource ?? credentials.source))"
        case .failure(let problem):
            return "not possible (\(problem.reason(.cli)))"
        }
    }
}
