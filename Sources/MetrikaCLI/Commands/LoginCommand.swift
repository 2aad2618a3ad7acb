import Dispatch
import Foundation
import MetrikaAPI
import MetrikaModel
import Synchronization

/// `metrika login`: signs in without a password, by the device flow with the user's own OAuth app,
/// or with a token pasted on standard input; checks the token with one API call and stores it.
enum LoginCommand: Command {
    static let name = "login"
    static let summary = "Sign in (device code, or a token on stdin) and store the token privately"
    static let synopses: [[UsageTerm]] = [
        [
            .optional([.oneOf([[.required(.clientID), .required(.clientSecret)], [.required(.tokenStdin)]])]),
            .optional(.scope), .optional(.store), .optional(.tokenFile), .optional(.profile)
        ]
    ]
    static let discussion = """
        The device flow shows a web address and a code: open the address on any device, sign in to
        Yandex there, and enter the code. metrika waits (Ctrl-C cancels) and stores the token in
        $XDG_CONFIG_HOME/metrika/token.json (mode 0600). It needs your registered OAuth app with the
        metrika:read scope. Its id and secret are each taken from the first of: --client-id/--client-secret,
        METRIKA_CLIENT_ID/METRIKA_CLIENT_SECRET, the profile's client_id/client_secret, the config file's,
        and (the id only) the token file being replaced. Renewal, `auth status` and logout use the same order.

        With --token-stdin, metrika reads a token (or the whole address the authorize page redirected
        to) from standard input; a token is never accepted as a command-line argument.

        metrika reads with the metrika:read scope. --scope write asks for metrika:write as well (your app
        must have it), which `metrika annotate` needs; the token file records the scopes asked for.

        --store keyring keeps the token in the system keyring instead (the Secret Service through
        secret-tool on Linux, the Keychain on macOS); the token file then only notes where it is. The
        private file stays the default, and the right choice on servers and under cron. With --profile
        NAME the token goes to that profile's token file (default token-NAME.json).

        Exit codes: 0 signed in, 69 the keyring could not be used, 77 refused/expired/rejected,
        78 missing client id or secret, unknown profile, 130 cancelled with Ctrl-C.

        Examples:
          METRIKA_CLIENT_ID=… METRIKA_CLIENT_SECRET=… metrika login
          pbpaste | metrika login --token-stdin
          metrika login --store keyring --profile agency
        """
    static let options: [OptionSpec] = [
        Option.clientID.spec, Option.clientSecret.spec, Option.tokenStdin.spec, Option.scope.spec, Option.store.spec,
        Option.tokenFile.described("Store the token here instead of $XDG_CONFIG_HOME/metrika/token.json").spec,
        TokenOptions.profile
    ]

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        // Never echo the word: it may be a token someone tried to pass as an argument.
        guard options.positionals.isEmpty else {
            throw UsageError(
                "login takes no arguments. To use a token you have, pipe it in: `metrika login --token-stdin`")
        }
        let (file, explicit) = try session.services.tokenFileToWrite()
        let useKeyring = try options[.store] == .keyring
        let scopes = try options[.scope] == .write ? ["metrika:read", StoredToken.writeScope] : ["metrika:read"]
        let timeout = try session.services.requestTimeout()
        let apiURL = try session.services.apiBaseURL()

        context.secrets.add(options[.clientSecret])
        var stored: StoredToken
        if options[.tokenStdin] {
            stored = try tokenFromStandardInput(context: context, clientID: options[.clientID])
        } else {
            // Signing in again with the app of the token stored before needs only its secret.
            let previousClientID: String?
            if case .token(let previous)? = try? file.readContent(enforcingPermissions: false) {
                previousClientID = previous.clientID
            } else {
                previousClientID = nil
            }
            guard let credentials = try session.services.clientCredentials(tokenClientID: previousClientID) else {
                throw AuthError.missingClientID
            }
            guard credentials.clientSecret != nil else { throw AuthError.missingClientSecret }
            let oauth = OAuthClient(
                baseURL: try session.services.oauthBaseURL(), transport: context.transport, requestTimeout: timeout,
                now: context.now, log: session.services.logger)
            let login = DeviceLogin(oauth: oauth, credentials: credentials, now: context.now, sleep: context.sleep)
            let asked = scopes.count > 1 ? scopes.joined(separator: " ") : nil
            guard let token = try await runCancellable(login, scope: asked, context: context) else {
                context.note("Login cancelled.")
                return AuthError.cancelledExitCode
            }
            stored = token
        }
        stored.scopes = scopes

        context.secrets.add(stored.accessToken)
        context.secrets.add(stored.refreshToken)
        // One cheap call proves the token works before it replaces a stored one.
        let client = MetrikaClient(
            baseURL: apiURL, token: stored.accessToken, transport: context.transport, requestTimeout: timeout,
            sleep: context.sleep, now: context.now, log: session.services.logger)
        let check: String
        do {
            let count = try await client.checkToken()
            check = "ok, \(count) counter\(count == 1 ? "" : "s") visible"
        } catch let failure as APIError where options[.tokenStdin] && Self.rejectsTheToken(failure) {
            // "Sign in again with metrika login" is no advice to someone doing just that.
            throw CLIFailure.pastedTokenRejected(reason: Self.rejection(failure))
        } catch APIError.unavailable(let detail) where !options[.tokenStdin] {
            // The user just confirmed on another device: keep the token rather than make them repeat that.
            context.note("Warning: could not check the token (\(detail)); storing it anyway.")
            check = "not checked (API unavailable)"
        }
        // What the file held before: a keyring entry it noted is replaced or, when the token now goes
        // to the file, removed (a forgotten copy of an old token is a copy too many).
        let previous = (try? file.readContent(enforcingPermissions: false)).flatMap { content -> Keyring? in
            guard case .keyring(let kind, let account) = content else { return nil }
            return Keyring(kind: kind, account: account, environment: context.environment)
        }
        let out = context.stdout
        if useKeyring {
            let keyring = Keyring(kind: .system, account: file.path, environment: context.environment)
            try await keyring.store(stored.encoded())
            try file.writeKeyringNote(keyring, tightenDirectory: !explicit)
            if let previous, previous != keyring { _ = try? await previous.delete() }
            out.write("Signed in. Token stored in \(keyring.displayName) (\(file.path) notes where)\n")
        } else {
            try file.write(stored, tightenDirectory: !explicit)
            if let previous {
                do {
                    try await previous.delete()
                } catch let error as AuthError {
                    context.note(
                        "Warning: the token stored before in \(previous.displayName) was not removed: \(error.message(.cli)) Remove it with `\(previous.manualRemoval)`."
                    )
                }
            }
            out.write("Signed in. Token stored in \(file.path)\n")
        }
        out.write(describe(stored, now: context.now(), apiCheck: check))
        if context.environment["METRIKA_TOKEN"].map({ !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty })
            == true, options[.tokenFile] == nil
        {
            context.note(
                "Note: METRIKA_TOKEN is set and takes precedence over the token file; unset it to use the token just stored."
            )
        }
        return ExitCode.ok
    }

    // MARK: - Device flow

    /// Runs the device flow in a task that Ctrl-C cancels. Returns nil when cancelled.
    static func runCancellable(_ login: DeviceLogin, scope: String? = nil, context: CLIContext) async throws
        -> StoredToken?
    {
        let now = context.now
        // The signal source turns Ctrl-C into task cancellation; the default action (dying mid-line,
        // without a message) is restored afterwards. It is in place before the code is shown (a Ctrl-C
        // right after "Press Ctrl-C" was ignored while the source was not yet registered), and a Ctrl-C
        // before the task exists cancels it as it starts.
        let running = Running()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            running.state.withLock { state in
                state.interrupted = true
                state.task?.cancel()
            }
        }
        await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
            source.setRegistrationHandler { registered.resume() }
            source.resume()
        }
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        let task = Task {
            try await login.run(deviceID: deviceID(), deviceName: deviceName(), scope: scope) { code in
                let minutes = max(1, (code.expiresIn + 59) / 60)
                // The address and the code are the OAuth server's words: quoted through the one
                // sanitizer, so they cannot clear the screen, set the title or write the clipboard.
                context.note(
                    "To sign in, open \(TerminalText.quote(code.verificationURL)) and enter the code: \(TerminalText.quote(code.userCode))"
                )
                context.note(
                    "Waiting for confirmation (the code expires in \(minutes) min, at \(StoredToken.timestamp(now().addingTimeInterval(Double(code.expiresIn))))). Press Ctrl-C to cancel."
                )
                context.stderr.flush()
            }
        }
        running.state.withLock { state in
            state.task = task
            if state.interrupted { task.cancel() }
        }
        do {
            return try await task.value
        } catch is CancellationError {
            return nil
        }
    }

    /// The login's task and whether Ctrl-C came (before the task existed, too).
    private final class Running: Sendable {
        let state = Mutex<(task: Task<StoredToken, any Error>?, interrupted: Bool)>((nil, false))
    }

    /// A fresh device id (6–50 characters) per login: Yandex can revoke only tokens issued for one.
    static func deviceID() -> String {
        "metrika-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(24)
    }

    /// What the user sees in their Yandex account's list of devices.
    static func deviceName() -> String {
        let host = ProcessInfo.processInfo.hostName
        return host.isEmpty ? "metrika" : "metrika on \(host.prefix(40))"
    }

    // MARK: - Pasted token

    /// Reads a token from stdin: the bare token, or the redirect address of the authorize page
    /// (`…/verification_code#access_token=…&expires_in=…`), whose expiry is kept too.
    static func tokenFromStandardInput(context: CLIContext, clientID: String?) throws -> StoredToken {
        guard let input = context.readStandardInput() else {
            throw AuthError.noTokenOnStandardInput("nothing could be read")
        }
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw AuthError.noTokenOnStandardInput("it was empty") }
        var token = text
        var expiresIn: Int?
        if let range = text.range(of: "access_token=") {
            let start =
                text[..<range.lowerBound].lastIndex(where: { $0 == "#" || $0 == "?" || $0 == "&" }).map {
                    text.index(after: $0)
                } ?? range.lowerBound
            let fields = FormEncoding.decode(String(text[start...]))
            guard let value = fields.first(where: { $0.0 == "access_token" })?.1, !value.isEmpty else {
                throw AuthError.noTokenOnStandardInput("the address holds an empty access_token")
            }
            token = value
            expiresIn = fields.first(where: { $0.0 == "expires_in" }).flatMap { Int($0.1) }
        }
        // Never quote the input back: it is a token, or something close to one.
        guard !token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw AuthError.noTokenOnStandardInput("it holds more than one word; paste only the token")
        }
        do {
            try TokenSource.check(token, source: "standard input")
        } catch AuthError.malformedToken(_, let problem) {
            // The same check as METRIKA_TOKEN and the token file, named the same way (never quoted).
            throw AuthError.noTokenOnStandardInput("it holds \(problem)")
        }
        let now = context.now()
        return StoredToken(
            accessToken: token, obtainedAt: now, expiresAt: expiresIn.map { now.addingTimeInterval(Double($0)) },
            clientID: clientID)
    }

    // MARK: - Output

    /// The stored fields, token masked, as aligned `name: value` lines.
    static func describe(_ stored: StoredToken, now: Date, apiCheck: String) -> String {
        var rows: [(String, String)] = [
            ("Token", TokenMask.mask(stored.accessToken)),
            ("Refresh token", stored.refreshToken == nil ? "none" : "stored"),
            ("Obtained", StoredToken.timestamp(stored.obtainedAt)),
            ("Expires", SignInText.expiry(stored.expiresAt, now: now))
        ]
        if let clientID = stored.clientID { rows.append(("Client id", clientID)) }
        rows.append(("API check", apiCheck))
        return SignInText.aligned(rows)
    }

    /// A 403 `invalid_token` or a 401: the API does not take the token at all.
    static func rejectsTheToken(_ failure: APIError) -> Bool {
        switch failure {
        case .invalidToken, .unauthorized: return true
        default: return false
        }
    }

    static func rejection(_ failure: APIError) -> String {
        if case .unauthorized = failure { return "401 Unauthorized" }
        return "invalid_token"
    }
}

// MARK: - Options of its own

/// `--scope` of `login`: read (the default) or write too (`metrika annotate`).
enum LoginScope: String, Sendable, CaseIterable {
    case read, write
}

extension Option where Value == LoginScope? {
    /// `--scope read|write`.
    static var scope: Option<LoginScope?> {
        .choice("scope", help: "Ask for metrika:read (default) or, with write, metrika:write too (metrika annotate)")
    }
}

/// `--store` of `login`: where the token is kept.
enum TokenStore: String, Sendable, CaseIterable {
    case file, keyring
}

extension Option where Value == TokenStore? {
    /// `--store file|keyring`, in any case.
    static var store: Option<TokenStore?> {
        .choice("store", help: "Keep the token in the private token file (default) or the system keyring")
    }
}

extension Option where Value == String? {
    /// `--client-id ID`: the OAuth app (login; read by `Services.clientCredentials`).
    static var clientID: Option<String?> {
        .text(
            "client-id", value: "ID", help: "Your OAuth app's client id (else METRIKA_CLIENT_ID, else the config file)")
    }
    /// `--client-secret SECRET`: the OAuth app's secret (login), masked wherever it could be shown.
    static var clientSecret: Option<String?> {
        .text(
            "client-secret", value: "SECRET",
            help: "Your OAuth app's client secret (else METRIKA_CLIENT_SECRET, else the config file)")
    }
}

extension Option where Value == Bool {
    /// `--token-stdin` of `login`: a token piped in instead of the device flow.
    static var tokenStdin: Option<Bool> {
        .flag("token-stdin", help: "Read a token from standard input instead of the device flow")
    }
}
