import Foundation
import MetrikaModel
import MetrikaSystem
import MetrikaWarehouse
import Testing

/// A ClickHouse password goes over plain http only to this machine (PlainHTTPPolicy).
@Suite("ClickHouse settings")
struct ClickHouseSettingsTests {
    static func make(_ url: String, _ environment: [String: String]) throws -> ClickHouseSettings {
        try ClickHouseSettings.make(url: url, table: nil, source: .visits, environment: environment, timeout: 30)
    }

    @Test func aPasswordGoesOverPlainHTTPOnlyToLoopback() throws {
        let password = ["METRIKA_CLICKHOUSE_USER": "loader", "METRIKA_CLICKHOUSE_PASSWORD": "pw"]
        do {
            _ = try Self.make("http://db.example.org:8123", password)
            Issue.record("a password over plain http to another host must be refused")
        } catch let failure as ConfigError {
            #expect(
                failure
                    == .plainHTTP(
                        setting: "The ClickHouse URL", url: "http://db.example.org:8123", host: "db.example.org",
                        secret: "METRIKA_CLICKHOUSE_PASSWORD"))
            #expect(failure.exitCode == ExitCode.config)
            #expect(
                failure.message
                    == "The ClickHouse URL 'http://db.example.org:8123' is plain http to db.example.org, which is not this machine: METRIKA_CLICKHOUSE_PASSWORD would cross the network unencrypted. Use https://, or set METRIKA_ALLOW_INSECURE_HTTP=1 for a test set-up."
            )
            #expect(!failure.message.contains("pw'"))
        }
        #expect(throws: Never.self) { _ = try Self.make("https://db.example.org:8443", password) }
        #expect(throws: Never.self) { _ = try Self.make("http://127.0.0.1:8123", password) }
        #expect(throws: Never.self) {
            _ = try Self.make(
                "http://db.example.org:8123", password.merging(["METRIKA_ALLOW_INSECURE_HTTP": "1"]) { $1 })
        }
        // Without a password nothing secret travels (a LAN server with the default user).
        #expect(throws: Never.self) { _ = try Self.make("http://db.example.org:8123", [:]) }
    }

    /// A URL refused for another fault (a port out of range, not a URL at all) never echoes the
    /// password it carried: credentials are refused first, and a malformed one is quoted without them.
    @Test(arguments: [
        ("http://loader:s3cretPW@db.example.org:99999", ClickHouseError.credentialsInURL),
        ("http://loader:s3cretPW@db example.org:8123", .notAURL(shown: "http://…@db example.org:8123")),
        ("ftp://loader:s3cretPW@db.example.org", .notAURL(shown: "ftp://…@db.example.org"))
    ])
    func aURLWithAPasswordIsNeverEchoed(url: String, expected: ClickHouseError) throws {
        do {
            _ = try Self.make(url, [:])
            Issue.record("\(url) must be refused")
        } catch let failure as ClickHouseError {
            #expect(failure == expected)
            #expect(failure.exitCode == ExitCode.usage)
            #expect(!failure.message.contains("s3cretPW"), "\(failure.message)")
        }
    }
}
