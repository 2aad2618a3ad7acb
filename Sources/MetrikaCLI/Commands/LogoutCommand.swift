import Foundation
import MetrikaAPI
import MetrikaModel

/// `metrika logout`: revokes the stored token on the server, then deletes the local copy (token file
/// or keyring). When the revocation fails it keeps the local copy and exits non-zero: deleting it would
/// leave a token that still works on the server and that nothing here can revoke any more. Running it
/// again when signed out is not an error.
enum LogoutCommand: Command {
    static let name = "logout"
    static let summary = "Revoke the stored token and delete it (token file or keyring)"
    static let synopses: [[UsageTerm]] = [[.optional(.localOnly), .optional(.tokenFile), .optional(.profile)]]
    static let discussion = """
        Revoking needs the OAuth app that issued the token: its client id (the token file notes it) and its
        secret, each from the first of METRIKA_CLIENT_ID/METRIKA_CLIENT_SECRET, the profile, the config
        file (client_id/client_secret), and the token file (the id only) — the order login and renewal use.

        If the token cannot be revoked (no client secret, the server refuses the app's credentials or
        cannot be reached), nothing is deleted: logout says why, and exits 78 (credentials) or 69 (server
        unreachable), since the token may still be valid on the server. Fix that and run it again, or pass
        --local-only to delete only the local copy (then revoke the token at https://id.yandex.ru/security).

        Yandex revokes only tokens issued by the device flow; for others (a pasted token) it answers
        unsupported_token_type: metrika deletes its copy, says the token stays valid until it expires,
        and exits 0 (without asking, for a pasted token when the app's credentials are incomplete). A token kept in the system keyring (login --store keyring) is deleted from there, then
        the token file that noted it. A token in METRIKA_TOKEN is not touched: unset the variable yourself.

        Exit codes: 0 revoked (or unrevocable by design) and deleted, or already signed out; 69 the OAuth
        server could not be reached; 73 the token file could not be deleted; 78 the app's credentials are
        missing or refused, or a bad config file. Only 0 deletes anything.
        """
    static let options: [OptionSpec] = [
        Option.localOnly.spec,
        Option.tokenFile.described("Sign out of this token file instead of $XDG_CONFIG_HOME/metrika/token.json").spec,
        TokenOptions.profile
    ]

    /// Where manual revocation is done.
    static let manualRevocation = "https://id.yandex.ru/security"

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        guard options.positionals.isEmpty else { throw UsageError("logout takes no arguments") }
        let file = try session.services.tokenFileToWrite().file
        let out = context.stdout
        defer { noteEnvironmentToken(context) }
        guard file.exists else {
            out.write("Already signed out: there is no token file at \(file.path).\n")
            return ExitCode.ok
        }
        let localOnly = options[.localOnly]
        // An unreadable or garbled file is still deleted: there is nothing in it to revoke.
        // A file others could read is read anyway, since revoking exactly that token is the point.
        let content = try? file.readContent(enforcingPermissions: false)
        if case .keyring(let kind, let account) = content {
            // The keyring must answer: deleting the note while the token stays there would lose track of it.
            let keyring = Keyring(kind: kind, account: account, environment: context.environment)
            if let data = try await keyring.lookup(), let stored = StoredToken.decode(data) {
                context.secrets.add(stored.accessToken)
                context.secrets.add(stored.refreshToken)
                try await revokeOrKeep(stored, kept: keyring.displayName, localOnly: localOnly, session: session)
            } else {
                context.note(
                    "Warning: \(keyring.displayName) holds no token for \(file.path), so nothing was revoked on the server."
                )
            }
            if try await keyring.delete() { out.write("Deleted the token from \(keyring.displayName).\n") }
        } else if case .token(let stored) = content {
            context.secrets.add(stored.accessToken)
            context.secrets.add(stored.refreshToken)
            try await revokeOrKeep(stored, kept: file.path, localOnly: localOnly, session: session)
        } else {
            context.note("Warning: the token file holds no readable token, so nothing was revoked on the server.")
        }
        if try file.delete() {
            out.write("Deleted \(file.path).\n")
        } else {
            out.write("Already signed out: there is no token file at \(file.path).\n")
        }
        return ExitCode.ok
    }

    /// Revokes `stored` on the server, or throws (the caller then deletes nothing): only a revoked
    /// token, one the server no longer knows, or one that no app can revoke may be deleted.
    /// `kept` names where the local copy stays.
    static func revokeOrKeep(_ stored: StoredToken, kept: String, localOnly: Bool, session: Session) async throws {
        let context = session.context
        let out = context.stdout
        if localOnly {
            out.write(
                "Not revoked on the server (--local-only): the token stays valid there until it expires, unless you revoke it at \(manualRevocation).\n"
            )
            return
        }
        func keep(_ reason: String, exitCode: Int32) -> CLIFailure {
            .notSignedOut(reason: reason, kept: kept, manualRevocation: manualRevocation, exitCode: exitCode)
        }
        let credentials: ClientCredentials
        switch try session.services.credentialsForToken(stored) {
        case .success(let found):
            credentials = found
        case .failure where stored.refreshToken == nil:
            // A pasted token (no refresh token) and not the app's full credentials: only device-flow
            // tokens can be revoked, which a pasted one practically never is, so asking for a secret
            // to send a request the server would refuse helps no one.
            out.write(
                "This token was not issued by `metrika login`'s device flow, so it cannot be revoked here: it stays valid until it expires, unless you revoke it at \(manualRevocation). Deleting the local copy.\n"
            )
            return
        case .failure(let problem):
            throw keep(problem.reason(.cli), exitCode: ExitCode.config)
        }
        let oauth = OAuthClient(
            baseURL: try session.services.oauthBaseURL(), transport: context.transport,
            requestTimeout: try session.services.requestTimeout(), now: context.now, log: session.services.logger)
        do {
            switch try await oauth.revoke(stored.accessToken, credentials: credentials) {
            case .revoked:
                out.write("Revoked the token \(TokenMask.mask(stored.accessToken)) on the server.\n")
            case .unsupportedTokenType:
                out.write(
                    "The server cannot revoke this token (it was not issued to a device): it stays valid until it expires, unless you revoke it at \(manualRevocation). Deleting the local copy.\n"
                )
            }
        } catch OAuthError.invalidGrant {
            out.write("The server no longer knows this token (already revoked or expired).\n")
        } catch let error as OAuthError {
            let reason: String
            switch error {
            case .invalidClient:
                reason =
                    "the OAuth server refused the app's credentials (invalid_client): check the client secret of the app \(credentials.clientID), from \(credentials.secretSource ?? credentials.source)"
            default:
                let message = error.message(.cli)
                reason = message.hasSuffix(".") ? String(message.dropLast()) : message
            }
            throw keep(reason, exitCode: error.exitCode)
        }
    }

    static func noteEnvironmentToken(_ context: CLIContext) {
        if let token = context.environment["METRIKA_TOKEN"],
            !token.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        {
            context.note(
                "Note: METRIKA_TOKEN is still set, so metrika stays signed in with it; unset it to sign out completely."
            )
        }
    }
}

// MARK: - Options of its own

extension Option where Value == Bool {
    /// `--local-only` of `logout`: no revocation.
    static var localOnly: Option<Bool> {
        .flag("local-only", help: "Delete the local copy without revoking the token on the server")
    }
}
