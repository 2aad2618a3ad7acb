import Foundation
import MetrikaSystem

/// One entry of the system keyring holding a token (`metrika login --store keyring`): the freedesktop
/// Secret Service through libsecret's `secret-tool` (GNOME Keyring, KWallet), or the macOS Keychain
/// through `/usr/bin/security`. The entry is found by the attributes `service metrika` and
/// `account <the token file's path>`, so each token file (each profile) has its own.
///
/// Why the tools and not the libraries: linking libsecret would make its headers (and glib's) a
/// build requirement for everyone, servers included, where the file is the right choice anyway.
///
/// The secret never appears in a child's argv or environment: `secret-tool store` reads it on stdin,
/// and `security` gets it in hex inside a command read from stdin (`security -i`). Children get the
/// environment without any `METRIKA_…` variable, a time limit, and a cap on what they may print.
package struct Keyring: Sendable, Equatable {
    /// Which keyring.
    package enum Kind: String, Sendable {
        /// The freedesktop Secret Service (`secret-tool`).
        case secretService = "secret-service"
        /// The macOS Keychain (`/usr/bin/security`).
        case macKeychain = "macos-keychain"

        /// This system's keyring: the Keychain on macOS, the Secret Service elsewhere.
        package static var system: Kind {
            #if os(macOS)
                return .macKeychain
            #else
                return .secretService
            #endif
        }

        /// For messages: `the Secret Service keyring`.
        package var displayName: String {
            switch self {
            case .secretService: return "the Secret Service keyring"
            case .macKeychain: return "the macOS Keychain"
            }
        }
    }

    /// The attribute (Keychain: service name) every metrika entry carries.
    package static let service = "metrika"

    /// Which keyring.
    package var kind: Kind
    /// The entry's `account` attribute: the token file's path.
    package var account: String
    /// metrika's environment: PATH finds `secret-tool`, D-Bus variables find the session; the child
    /// gets it without METRIKA_ variables.
    package var environment: [String: String]
    /// Seconds a child may take: a keyring may ask the user to unlock it in a dialog.
    package var timeout: Double
    /// What to do instead when there is no keyring tool, for the message: nil for the Metrika token's
    /// private file (`SuggestedAction.keepTokenInFile`, worded by the entry point); a Telegram bot's
    /// token says its own places.
    package var instead: String?

    /// The entry `account` in `kind`.
    package init(kind: Kind, account: String, environment: [String: String], timeout: Double = 60) {
        self.kind = kind
        self.account = account
        self.environment = environment
        self.timeout = timeout
    }

    package static func == (a: Keyring, b: Keyring) -> Bool { a.kind == b.kind && a.account == b.account }

    /// For messages: `the Secret Service keyring`.
    package var displayName: String { kind.displayName }

    // MARK: - Operations

    /// Stores (or replaces) the entry's secret.
    package func store(_ secret: Data) async throws {
        switch kind {
        case .secretService:
            let result = try await run(
                secretTool(), ["store", "--label=metrika token (\(account))"] + attributes, input: secret)
            guard result.succeeded else { throw failure("storing failed", result) }
        case .macKeychain:
            // `security add-generic-password -w` would put the secret in argv: the command goes on stdin instead.
            let hex = secret.map { String(format: "%02x", $0) }.joined()
            let command =
                "add-generic-password -U -s \(Self.service) -a \"\(Self.quotable(account))\" -l \"metrika token\" -X \(hex)\n"
            let result = try await run("/usr/bin/security", ["-i"], input: Data(command.utf8))
            guard result.succeeded, !result.errors.contains("rror") else { throw failure("storing failed", result) }
        }
    }

    /// The entry's secret; nil when there is no such entry.
    package func lookup() async throws -> Data? {
        switch kind {
        case .secretService:
            let result = try await run(secretTool(), ["lookup"] + attributes)
            if result.succeeded { return result.output }
            // secret-tool says nothing and exits 1 when the entry is missing; failures print a reason.
            if result.status == 1, result.errors.isEmpty { return nil }
            throw failure("reading failed", result)
        case .macKeychain:
            let result = try await run(
                "/usr/bin/security", ["find-generic-password", "-s", Self.service, "-a", Self.quotable(account), "-w"])
            if result.succeeded {
                return Data(String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .newlines).utf8)
            }
            if result.status == Self.keychainItemNotFound { return nil }
            throw failure("reading failed", result)
        }
    }

    /// Removes the entry; false when there was none.
    @discardableResult
    package func delete() async throws -> Bool {
        switch kind {
        case .secretService:
            let result = try await run(secretTool(), ["clear"] + attributes)
            if result.succeeded { return true }
            if result.status == 1, result.errors.isEmpty { return false }
            throw failure("deleting failed", result)
        case .macKeychain:
            let result = try await run(
                "/usr/bin/security", ["delete-generic-password", "-s", Self.service, "-a", Self.quotable(account)])
            if result.succeeded { return true }
            if result.status == Self.keychainItemNotFound { return false }
            throw failure("deleting failed", result)
        }
    }

    /// The command that removes the entry by hand, for messages.
    package var manualRemoval: String {
        switch kind {
        case .secretService: return "secret-tool clear service \(Self.service) account \(account)"
        case .macKeychain: return "security delete-generic-password -s \(Self.service) -a \(account)"
        }
    }

    /// The command that stores the entry by hand, asking for the secret (never an argument), for
    /// messages and docs: what keeps the Telegram bot's token (`"telegram": {"keyring": …}`).
    package func manualStore(label: String) -> String {
        switch kind {
        case .secretService: return "secret-tool store --label='\(label)' service \(Self.service) account \(account)"
        case .macKeychain: return "security add-generic-password -s \(Self.service) -a \(account) -l '\(label)' -w"
        }
    }

    // MARK: - Children

    /// errSecItemNotFound, as `security` reports it in its exit status.
    static let keychainItemNotFound: Int32 = 44

    private var attributes: [String] { ["service", Self.service, "account", account] }

    /// `security -i` reads quoted words; a quote or backslash in a path would end one early.
    static func quotable(_ text: String) -> String {
        String(text.map { $0 == "\"" || $0 == "\\" || $0.isNewline ? "_" : $0 })
    }

    /// `secret-tool` on PATH, or an explanation of how to get it.
    func secretTool() throws -> String {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/secret-tool"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw AuthError.keyringToolMissing(keyring: displayName, instead: instead)
    }

    struct ChildResult {
        var status: Int32
        var exited: Bool
        var output: Data
        var errors: String
        var succeeded: Bool { exited && status == 0 }
    }

    private func failure(_ what: String, _ result: ChildResult) -> AuthError {
        let how = result.exited ? "exit status \(result.status)" : "signal \(result.status)"
        let said = result.errors.isEmpty ? "" : ": " + result.errors
        return AuthError.keyringUnavailable(keyring: displayName, reason: "\(what) (\(how))\(said)")
    }

    /// Runs `program` with `input` on stdin, bounded in time (killed after `timeout` s) and output
    /// (64 KiB; a token entry is a few hundred bytes). What it says on stderr comes back as one line.
    func run(_ program: String, _ arguments: [String], input: Data = Data()) async throws -> ChildResult {
        let child = ChildProcess(
            program: program, arguments: arguments, environment: environment, timeout: timeout,
            maximumOutput: 64 << 10, maximumErrors: 64 << 10, stopsOnOutputOverflow: true)
        let result: ChildProcess.Result
        do {
            result = try await child.run(input: input)
        } catch {
            throw AuthError.keyringUnavailable(
                keyring: displayName, reason: "cannot start \(program) (\(error.reason))")
        }
        if result.timedOut {
            throw AuthError.keyringUnavailable(
                keyring: displayName,
                reason:
                    "\((program as NSString).lastPathComponent) did not answer within \(String(format: "%g", timeout)) s and was stopped (is the keyring locked, waiting for a password dialog?)"
            )
        }
        return ChildResult(
            status: result.status, exited: result.exited && !result.outputOverflowed,
            output: result.output, errors: ChildProcess.summary(of: result.errors)
        )
    }
}
