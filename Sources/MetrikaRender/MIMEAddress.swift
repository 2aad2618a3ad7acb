import MetrikaModel

/// A mailbox: an address with an optional display name, checked before it goes into a header.
///
/// The check is deliberately stricter than RFC 5322 (dot-atom local parts and DNS-style domains only,
/// no quoted local parts, no comments, no IP literals): what it accepts is safe to put in a header and
/// on a sendmail command line, and what it rejects is almost always a typo.
package struct MIMEAddress: Hashable, Sendable, CustomStringConvertible {
    /// The display name (`Иван Петров` in `Иван Петров <ivan@example.com>`), if any.
    package let displayName: String?
    /// The bare address, `local@domain`.
    package let address: String

    /// A rejected address: exit 64 (a usage error), naming what was given.
    package struct InvalidAddress: MetrikaFailure, Equatable {
        /// What was given.
        package let text: String
        package var exitCode: Int32 { ExitCode.usage }
        package var message: String {
            "not a valid e-mail address: \"\(MIMEEncoding.singleLine(text))\" (expected name@example.com or Name <name@example.com>)"
        }
    }

    /// A mailbox from a bare address and an optional display name; throws `InvalidAddress`.
    package init(_ address: String, displayName: String? = nil) throws {
        guard MIMEAddress.isValid(address) else { throw InvalidAddress(text: address) }
        self.address = address
        let name = displayName.map { MIMEEncoding.singleLine($0).trimmingSpaces }
        self.displayName = (name?.isEmpty ?? true) ? nil : name
    }

    /// Parses what a user types: `name@example.com` or `Display Name <name@example.com>` (the name may
    /// be in double quotes). Throws `InvalidAddress`.
    package init(parsing text: String) throws {
        let trimmed = text.trimmingSpaces
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            let inner = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var name = String(trimmed[..<open]).trimmingSpaces
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                    .replacingOccurrences(of: "\\\\", with: "\\")
            }
            do { try self.init(inner, displayName: name) } catch { throw InvalidAddress(text: text) }
        } else {
            do { try self.init(trimmed) } catch { throw InvalidAddress(text: text) }
        }
    }

    /// Parses a comma-separated list (`a@x.org, "Doe, Jane" <b@y.org>`; commas inside double quotes
    /// belong to the name); throws on the first bad entry or an empty list.
    package static func list(parsing text: String) throws -> [MIMEAddress] {
        var entries: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            }
            if character == ",", !quoted {
                entries.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        entries.append(current)
        entries = entries.map(\.trimmingSpaces).filter { !$0.isEmpty }
        guard !entries.isEmpty else { throw InvalidAddress(text: text) }
        return try entries.map { try MIMEAddress(parsing: $0) }
    }

    /// `local@domain`: a dot-atom local part of up to 64 characters, a domain of one or more labels,
    /// each 1–63 letters, digits or inner hyphens; 254 characters at most. A one-label domain is a
    /// local host (`root@localhost`, `alice@vm`): the usual address of a cron mail, which the local
    /// sendmail delivers.
    package static func isValid(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, address.utf8.count <= 254 else { return false }
        let local = parts[0]
        let domain = parts[1]
        guard !local.isEmpty, local.utf8.count <= 64 else { return false }
        let atext = Set("!#$%&'*+-/=?^_`{|}~".utf8)
        for atom in local.split(separator: ".", omittingEmptySubsequences: false) {
            guard !atom.isEmpty, atom.utf8.allSatisfy({ isAlphanumeric($0) || atext.contains($0) }) else {
                return false
            }
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard !labels.isEmpty else { return false }
        for label in labels {
            guard (1...63).contains(label.utf8.count),
                label.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") }),
                label.first != "-", label.last != "-"
            else { return false }
        }
        return true
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The domain part, for Message-IDs.
    package var domain: String { String(address.split(separator: "@").last ?? "") }

    /// The mailbox as header tokens (to be folded): the name as an atom phrase, a quoted string or
    /// encoded-words, then `<address>`.
    package var headerTokens: [String] {
        guard let displayName else { return [address] }
        let phraseCharacters = Set("!#$%&'*+-/=?^_`{|}~ ".utf8)
        var tokens: [String]
        if displayName.utf8.allSatisfy({ MIMEAddress.isAlphanumeric($0) || phraseCharacters.contains($0) }),
            !displayName.contains("=?")
        {
            tokens = displayName.split(separator: " ").map(String.init)
        } else if MIMEEncoding.isPlainHeaderText(displayName) {
            tokens = [
                "\""
                    + displayName.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                        of: "\"", with: "\\\"") + "\""
            ]
        } else {
            // Short words: the mailbox may start on a line after `From: ` or after another mailbox.
            tokens = MIMEEncoding.encodedWords(displayName, firstWordLimit: 60)
        }
        tokens.append("<" + address + ">")
        return tokens
    }

    package var description: String { headerTokens.joined(separator: " ") }
}
