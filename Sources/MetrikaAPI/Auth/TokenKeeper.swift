import Foundation
import MetrikaModel

/// Keeps the access token of one run fresh: renews it with the refresh token when fewer than
/// `refreshWindow` seconds remain (once, before the first request), and once more if the API
/// rejects it mid-run. A renewed token is written back to where it came from (the token file, or
/// the keyring entry that file notes). When it
/// cannot renew, it warns on stderr with the command that fixes things, once per run.
package actor TokenKeeper {
    /// Renew when fewer than 30 days remain, as mature clients do (tokens live about a year).
    package static let refreshWindow: Double = 30 * 86_400

    private let resolved: ResolvedToken
    private let oauth: OAuthClient?
    private let credentials: ClientCredentials?
    /// Why `credentials` cannot renew (from `ClientCredentials.forToken`), when the caller knows.
    private let credentialsProblem: AppCredentialsProblem?
    private let now: @Sendable () -> Date
    private let warn: @Sendable (String) -> Void
    private let log: (@Sendable (String) -> Void)?
    /// The words of a renewal's failure in `warn`'s lines: the entry point's.
    private let naming: ParameterNaming
    private var stored: StoredToken?
    private var current: String
    private var preparation: Task<Void, Never>?
    private var recovery: Task<String?, Never>?

    /// A keeper for `resolved`. Without `oauth` or complete `credentials` it only warns, never renews;
    /// `credentialsProblem` is then the reason it gives. `warn` prints a line to stderr; `log` is the
    /// `--verbose` request log; `naming` words the failures they quote.
    package init(
        resolved: ResolvedToken, oauth: OAuthClient?, credentials: ClientCredentials?,
        credentialsProblem: AppCredentialsProblem? = nil,
        now: @escaping @Sendable () -> Date, warn: @escaping @Sendable (String) -> Void,
        log: (@Sendable (String) -> Void)? = nil,
        naming: ParameterNaming = .neutral
    ) {
        self.naming = naming
        self.resolved = resolved
        self.oauth = oauth
        self.credentials = credentials
        self.credentialsProblem = credentialsProblem
        self.now = now
        self.warn = warn
        self.log = log
        self.stored = resolved.stored
        self.current = resolved.token
    }

    /// The token this run was started with.
    package nonisolated var originalToken: String { resolved.token }

    /// The token to send now; the first call renews it first if it is close to expiry.
    package func token() async -> String {
        if preparation == nil {
            preparation = Task { await self.prepare() }
        }
        await preparation?.value
        return current
    }

    /// Called when the API answered invalid_token for `rejected`: renews once per run and returns
    /// the new token, or nil when there is nothing better to send (the caller keeps the answer).
    package func tokenAfterRejection(of rejected: String) async -> String? {
        if rejected != current { return current }
        if recovery == nil {
            recovery = Task { await self.recover() }
        }
        return await recovery?.value ?? nil
    }

    // MARK: - Steps

    private func prepare() async {
        guard let stored, let expiresAt = stored.expiresAt else { return }
        let left = expiresAt.timeIntervalSince(now())
        guard left < Self.refreshWindow else { return }
        switch await renew() {
        case .success(let token):
            current = token
        case .failure(_, said: true):
            // Another keeper of this token file tried it moments ago and said so.
            return
        case .failure(let reason, _):
            if left <= 0 {
                warn(
                    "Warning: the token in \(resolved.source) expired on \(StoredToken.day(expiresAt)) and could not be renewed (\(reason)). \(naming.action(.signInAfterExpiry))"
                )
            } else {
                let days = Int((left / 86_400).rounded(.up))
                warn(
                    "Warning: the token in \(resolved.source) expires on \(StoredToken.day(expiresAt)) (in \(days) day\(days == 1 ? "" : "s")) and could not be renewed automatically (\(reason)). \(naming.action(.renewToken))"
                )
            }
        }
    }

    private func recover() async -> String? {
        if resolved.path == nil {
            warn(
                "Note: the rejected token came from \(resolved.source); set a valid one there, or unset it to use the token file."
            )
            return nil
        }
        switch await renew() {
        case .success(let token):
            current = token
            return token
        case .failure(let reason, _):
            log?("  the rejected token could not be renewed (\(reason))")
            return nil
        }
    }

    private enum Renewal {
        case success(String)
        /// Why not; `said`: another keeper's renewal failed so and said it.
        case failure(String, said: Bool = false)
    }

    /// One refresh_token grant, written back to its store. The reason of a failure is safe to print.
    private func renew() async -> Renewal {
        guard let stored, let path = resolved.path else { return .failure("it does not come from a token file") }
        guard let refreshToken = stored.refreshToken else { return .failure("the token file holds no refresh token") }
        guard let oauth else { return .failure("no OAuth server is known to renew it at") }
        guard let credentials, credentials.clientSecret != nil else {
            let problem =
                credentialsProblem ?? credentials.map { .noClientSecret(clientID: $0.clientID) }
                ?? stored.clientID.map { .noClientSecret(clientID: $0) } ?? .noClientID
            return .failure(problem.reason(naming))
        }
        // One renewal of this token file at a time, in this process and across processes.
        let (resolved, now, warn, log, naming) = (resolved, now, warn, log, naming)
        let (outcome, first) = await TokenRenewals.shared.renew(path: path, refreshToken: refreshToken, now: now()) {
            await TokenRenewals.withFileLock(beside: path) {
                // Another process's renewal failed moments ago (and said so): not asked again.
                if let mark = TokenRenewals.backingOff(beside: path, expiresAt: stored.expiresAt, now: now()) {
                    log?("  the token's renewal failed moments ago (\(mark.reason)): not tried again yet")
                    return .failedQuietly(mark.reason)
                }
                let outcome = await Self.refresh(
                    stored, refreshToken: refreshToken, oauth: oauth, credentials: credentials, resolved: resolved,
                    path: path, now: now, warn: warn, log: log, naming: naming)
                return TokenRenewals.keep(outcome, beside: path, expiresAt: stored.expiresAt, now: now())
            }
        }
        switch outcome {
        case .renewed(let renewed):
            self.stored = renewed
            return .success(renewed.accessToken)
        case .failed(let reason):
            return .failure(reason, said: !first)
        case .failedQuietly(let reason):
            return .failure(reason, said: true)
        }
    }

    /// One refresh_token grant, written back to its store, unless the token file (read again under
    /// the lock) holds a token another process renewed meanwhile.
    private static func refresh(
        _ stored: StoredToken, refreshToken: String, oauth: OAuthClient, credentials: ClientCredentials,
        resolved: ResolvedToken, path: String, now: @Sendable () -> Date, warn: @Sendable (String) -> Void,
        log: (@Sendable (String) -> Void)?, naming: ParameterNaming
    ) async -> TokenRenewals.Outcome {
        if resolved.keyring == nil, let onDisk = try? TokenFile(path: path).read(),
            onDisk.accessToken != stored.accessToken,
            onDisk.expiresAt.map({ $0.timeIntervalSince(now()) >= refreshWindow }) ?? true
        {
            log?("  the token was renewed by another metrika meanwhile: read from \(path)")
            return .renewed(onDisk)
        }
        do {
            let grant = try await oauth.refresh(refreshToken, credentials: credentials)
            let renewed = StoredToken(
                grant: grant, obtainedAt: now(), clientID: stored.clientID ?? credentials.clientID, previous: stored)
            do {
                // Back to where it came from: the keyring entry, or the token file.
                if let keyring = resolved.keyring {
                    try await keyring.store(renewed.encoded())
                } else {
                    try TokenFile(path: path).write(renewed)
                }
            } catch let error as AuthError {
                // The new token still works for this run; the next run will renew again.
                warn("Warning: the token was renewed but could not be saved: \(error.message(naming))")
            }
            let until = renewed.expiresAt.map { " until \(StoredToken.day($0))" } ?? ""
            log?("  renewed the token\(until) and saved it to \(resolved.keyring?.displayName ?? path)")
            return .renewed(renewed)
        } catch let error as OAuthError {
            let message = error.message(naming)
            return .failed(message.hasSuffix(".") ? String(message.dropLast()) : message)
        } catch {
            return .failed("the refresh request failed")
        }
    }
}
