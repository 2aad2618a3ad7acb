import Foundation
import MetrikaModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The token file on disk: read with the permission check ssh does for private keys, written
/// atomically with mode 0600 in a 0700 directory, deleted on logout.
package struct TokenFile: Sendable, Equatable {
    /// The file's path.
    package let path: String

    /// The file at `path`.
    package init(path: String) {
        self.path = path
    }

    /// `$XDG_CONFIG_HOME/metrika/token.json`, else `~/.config/metrika/token.json`.
    package static func defaultFile(environment: [String: String]) -> TokenFile {
        TokenFile(path: TokenSource.defaultPath(environment: environment))
    }

    /// Whether something exists at the path (a dangling symlink counts: logout must remove it).
    package var exists: Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    // MARK: - Reading

    /// Reads the token. Refuses a file that group or others may access, or that another user owns:
    /// such a token may already be in someone else's hands, and silently using it hides that.
    /// `enforcingPermissions: false` is for logout only, which must be able to revoke exactly such a token.
    package func read(enforcingPermissions: Bool = true) throws -> StoredToken {
        switch try readContent(enforcingPermissions: enforcingPermissions) {
        case .token(let stored):
            return stored
        case .keyring(let kind, _):
            throw AuthError.unreadableTokenFile(
                path: path, reason: "it says the token is in \(kind.displayName), not in the file")
        }
    }

    /// What a token file holds: the token itself, or (after `login --store keyring`) a note of the
    /// keyring that holds it.
    package enum Content: Sendable, Equatable {
        /// The token is in the file.
        case token(StoredToken)
        /// The token is in the system keyring, under the entry `account`.
        case keyring(Keyring.Kind, account: String)
    }

    /// Reads the file with the checks of `read`, telling a token from a keyring note.
    package func readContent(enforcingPermissions: Bool = true) throws -> Content {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "it does not exist" : "it cannot be opened (\(Self.systemReason()))"
            throw AuthError.unreadableTokenFile(path: path, reason: reason)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw AuthError.unreadableTokenFile(path: path, reason: Self.systemReason())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw AuthError.unreadableTokenFile(path: path, reason: "it is not a regular file")
        }
        let mode = Int(info.st_mode & 0o777)
        if enforcingPermissions, mode & 0o077 != 0 {
            throw AuthError.insecureTokenFile(path: path, mode: mode)
        }
        if enforcingPermissions, info.st_uid != getuid() {
            throw AuthError.foreignTokenFile(path: path)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw AuthError.unreadableTokenFile(path: path, reason: "reading failed")
        }
        let members = TokenFileMembers.decode(data)
        if let stored = members.flatMap(StoredToken.init(members:)) { return .token(stored) }
        if let store = members?.store {
            guard let kind = Keyring.Kind(rawValue: store), let account = members?.account, !account.isEmpty else {
                throw AuthError.unreadableTokenFile(
                    path: path,
                    reason:
                        "it names a token store this metrika does not know (\(TerminalText.quote(String(store.prefix(40)))))"
                )
            }
            return .keyring(kind, account: account)
        }
        // A bare token on one line is accepted too (people paste one into a file).
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == "{" || $0 == "\"" }) {
            return .token(StoredToken(accessToken: text, obtainedAt: Date(timeIntervalSince1970: 0)))
        }
        throw AuthError.unreadableTokenFile(path: path, reason: "it holds no access_token")
    }

    // MARK: - Writing

    /// Writes `token` atomically: a 0600 temporary file in the same directory, flushed, then renamed
    /// over the path, so a reader sees the old token or the new one and never half a file. Missing
    /// directories are created 0700; `tightenDirectory` also narrows an existing one to 0700 (only
    /// for metrika's own config directory, never a directory the user named).
    package func write(_ token: StoredToken, tightenDirectory: Bool = false) throws {
        try write(data: token.encoded(), tightenDirectory: tightenDirectory)
    }

    /// Writes the note that the token is in `keyring` (no secret: the file stays 0600 all the same).
    package func writeKeyringNote(_ keyring: Keyring, tightenDirectory: Bool = false) throws {
        let note =
            "{\n  \"version\": 1,\n  \"store\": \(StoredToken.quote(keyring.kind.rawValue)),\n  \"account\": \(StoredToken.quote(keyring.account))\n}\n"
        try write(data: Data(note.utf8), tightenDirectory: tightenDirectory)
    }

    private func write(data: Data, tightenDirectory: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard !name.isEmpty, name != ".", name != ".." else {
            throw AuthError.cannotWriteTokenFile(path: path, reason: "not a file name")
        }
        if !directory.isEmpty {
            try createDirectories(directory)
            if tightenDirectory, chmod(directory, 0o700) != 0 {
                throw AuthError.cannotWriteTokenFile(
                    path: path, reason: "cannot set mode 0700 on \(directory) (\(Self.systemReason()))")
            }
        }
        let folder = directory.isEmpty ? "." : directory
        var template = Array((folder + "/." + name + ".tmp-XXXXXX").utf8CString)
        // mkstemp creates the file 0600 whatever the umask: the token is never briefly world-readable.
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw AuthError.cannotWriteTokenFile(path: path, reason: Self.systemReason()) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            guard fchmod(descriptor, 0o600) == 0 else {
                throw AuthError.cannotWriteTokenFile(path: path, reason: Self.systemReason())
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            do {
                try handle.write(contentsOf: data)
            } catch {
                throw AuthError.cannotWriteTokenFile(path: path, reason: "writing failed")
            }
            guard fsync(descriptor) == 0 else {
                throw AuthError.cannotWriteTokenFile(path: path, reason: Self.systemReason())
            }
        }
        guard rename(temporary, path) == 0 else {
            throw AuthError.cannotWriteTokenFile(path: path, reason: Self.systemReason())
        }
        renamed = true
        // Make the rename itself durable; a failure here loses nothing that was not already written.
        let directoryDescriptor = open(folder, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Deletes the file. Returns false when there was nothing to delete (logout twice is fine).
    @discardableResult
    package func delete() throws -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw AuthError.cannotWriteTokenFile(path: path, reason: "cannot delete it (\(Self.systemReason()))")
    }

    private func createDirectories(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw AuthError.cannotWriteTokenFile(path: path, reason: "\(directory) is not a directory")
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != directory { try createDirectories(parent) }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw AuthError.cannotWriteTokenFile(
                path: path, reason: "cannot create \(directory) (\(Self.systemReason()))")
        }
        // mkdir honours the umask, which can only remove bits; set 0700 exactly.
        _ = chmod(directory, 0o700)
    }

    static func systemReason() -> String {
        String(cString: strerror(errno))
    }
}
