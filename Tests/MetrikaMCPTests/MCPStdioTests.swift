import Foundation
import MetrikaServices
import Testing

@testable import MetrikaMCP

/// The MCP host's last guard, whatever the transport: a known secret is kept out of protocol lines.
@Suite("MCP host")
struct MCPHostTests {
    @Test func knownSecretsAreMaskedInProtocolLinesWhichStayJSON() throws {
        let environment = [
            "HOME": "/nonexistent", "METRIKA_TOKEN": "y0_AgAAAAsecret", "METRIKA_CLICKHOUSE_PASSWORD": "pa\"ss"
        ]
        let secrets = KnownSecrets()
        secrets.add("file-token-1234")
        let known = secrets.all(environment: environment)
        let line =
            #"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"echoed y0_AgAAAAsecret and file-token-1234"}]}}"#
            + "\n"
        let masked = MCPHost.masking(known, in: line)
        #expect(!masked.contains("y0_AgAAAAsecret") && !masked.contains("file-token-1234"))
        #expect(masked.contains("echoed [hidden] and [hidden]"))
        #expect((try? JSONSerialization.jsonObject(with: Data(masked.utf8))) != nil)
        #expect(
            MCPHost.masking(known, in: #"{"a":"pa\"ss"}"#) == #"{"a":"pa\"ss"}"#, "a secret with a quote is left alone")
    }

    /// A short secret (a ClickHouse password `true`) would rewrite the line's JSON literals: left to
    /// the tools' own masking of their text (review).
    @Test func aShortSecretLeavesTheLinesJSONAlone() {
        let known = KnownSecrets().all(environment: ["HOME": "/nonexistent", "METRIKA_CLICKHOUSE_PASSWORD": "true"])
        let line = #"{"jsonrpc":"2.0","id":1001,"result":{"isError":true}}"#
        #expect(MCPHost.masking(known, in: line) == line)
    }
}
