import Foundation
import Synchronization

/// The secrets this run knows (the token, the OAuth app's secret, the ClickHouse password), so that
/// every entry point masks them wherever a server quoted them (`CLIContext.note`, the MCP server's lines).
/// Secrets from the environment are always known; a token read from a file is added when resolved.
package final class KnownSecrets: Sendable {
    /// The environment variables whose values are secrets.
    package static let environmentVariables = [
        EnvironmentSettings.tokenVariable, EnvironmentSettings.clientSecretVariable,
        EnvironmentSettings.clickHousePasswordVariable, EnvironmentSettings.webhookURLVariable,
        EnvironmentSettings.telegramTokenVariable
    ]

    private let added = Mutex<[String]>([])

    /// An empty list (the environment's secrets are passed to `all(environment:)`).
    package init() {}

    /// Remembers `secret` (a token read from a file or just obtained) for masking.
    package func add(_ secret: String?) {
        guard let secret, !secret.isEmpty else { return }
        added.withLock { added in
            if !added.contains(secret) { added.append(secret) }
        }
    }

    /// Every known secret: the environment's and the ones added.
    package func all(environment: [String: String]) -> [String] {
        let fromEnvironment = Self.environmentVariables.compactMap {
            environment[$0]?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (fromEnvironment + added.withLock { $0 }).filter { !$0.isEmpty }
    }
}
