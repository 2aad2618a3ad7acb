import Foundation
import MetrikaAPI
import MetrikaModel

/// `metrika logout`: revokes the stored token on the server when it can, and deletes the token
/// file. Running it again when signed out is not an error.
enum LogoutCommand: Command {
    static let name = "logout"
    static let summary = "Revoke the stored token and delete it (token file or keyring)"
    static let usage = "logout [--token-file PATH] [--profile NAME]"
    static let discussion = """
    Revoking needs the OAuth app that issued the token (its client id is in the token file; the
    secret comes from METRIKA_CLIENT_SECRET or the config file). Yandex revokes only tokens issued
    by the device flow; for others it answers unsupported_token_type and metrika just deletes its copy.
    A token kept in the system keyring (login --store keyring) is deleted from there, then the
    token file that noted it. A token in METRIKA_TOKEN is not touched: unset the variable yourself.
    """
    static let options: [OptionSpec] = [
        OptionSpec("token-file", value: "PATH", help: "Sign out of this token file instead of $XDG_CONFIG_HOME/metrika/token.json"),
        TokenOptions.profile,
    ]

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        guard options.positionals.isEmpty else { throw UsageError("logout takes no arguments") }
        let file = try session.tokenFileToWrite().file
        let out = context.stdout
        defer { noteEnvironmentToken(context) }
        guard file.exists else {
            out.write("Already signed out: there is no token file at \(file.path).\n")
            return ExitCode.ok
        }
        // An unreadable or garbled file is still deleted: logout must always be able to clean up.
        // A file others could read is read anyway, since revoking exactly that token is the point.
        let content = try? file.readContent(enforcingPermissions: false)
        if case .keyring(let kind, let account) = content {
            // The keyring must answer: deleting the note while the token stays there would lose track of it.
            let keyring = Keyring(kind: kind, account: account, environment: context.environment)
            if let data = try keyring.lookup(), let stored = StoredToken.decode(data) {
                context.secrets.add(stored.accessToken)
                context.secrets.add(stored.refreshToken)
                await revoke(stored, session: session, context: context)
            } else {
                context.note("Warning: \(keyring.displayName) holds no token for \(file.path), so nothing was revoked on the server.")
            }
            if try keyring.delete() { out.write("Deleted the token from \(keyring.displayName).\n") }
        } else if case .token(let stored) = content {
            await revoke(stored, session: session, context: context)
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

    /// Revokes on the server; every failure is a warning, since the local copy is deleted either way.
    static func revoke(_ stored: StoredToken, session: Session, context: CLIContext) async {
        let out = context.stdout
        let manual = "revoke it at https://id.yandex.ru/security if it may have leaked"
        guard let credentials = (try? ClientCredentials.forIssuer(stored.clientID, environment: context.environment, configFile: session.configFile)) ?? nil else {
            context.note("Warning: not revoked on the server: no client id is known for this token (set METRIKA_CLIENT_ID); \(manual).")
            return
        }
        do {
            let oauth = OAuthClient(baseURL: try session.oauthBaseURL(), transport: context.transport, requestTimeout: try session.requestTimeout(), now: context.now, log: session.logger)
            switch try await oauth.revoke(stored.accessToken, credentials: credentials) {
            case .revoked:
                out.write("Revoked the token \(TokenMask.mask(stored.accessToken)) on the server.\n")
            case .unsupportedTokenType:
                out.write("The server cannot revoke this token (it was not issued to a device); deleting the local copy only.\n")
            }
        } catch OAuthError.invalidGrant {
            out.write("The server no longer knows this token (already revoked or expired).\n")
        } catch let error as any MetrikaFailure {
            context.note("Warning: not revoked on the server: \(error.message) Deleting the local copy anyway; \(manual).")
        } catch {
            context.note("Warning: not revoked on the server; deleting the local copy anyway; \(manual).")
        }
    }

    static func noteEnvironmentToken(_ context: CLIContext) {
        if let token = context.environment["METRIKA_TOKEN"], !token.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            context.note("Note: METRIKA_TOKEN is still set, so metrika stays signed in with it; unset it to sign out completely.")
        }
    }
}
