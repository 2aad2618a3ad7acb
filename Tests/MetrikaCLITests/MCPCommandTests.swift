import Foundation
import Testing
@testable import MetrikaCLI

/// `metrika mcp`'s CLI side: the last guard that keeps a known secret out of protocol lines.
@Suite("MCP command")
struct MCPCommandTests {
    @Test func knownSecretsAreMaskedInProtocolLinesWhichStayJSON() throws {
        let context = CLIContext(environment: ["HOME": "/nonexistent", "METRIKA_TOKEN": "y0_AgAAAAsecret", "METRIKA_CLICKHOUSE_PASSWORD": "pa\"ss"],
                                 stdout: TextSink(), stderr: TextSink(), transport: CLIConventionsTests.NoNetwork())
        context.secrets.add("file-token-1234")
        let line = #"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"echoed y0_AgAAAAsecret and file-token-1234"}]}}"# + "\n"
        let masked = maskingSecrets(in: line, context: context)
        #expect(!masked.contains("y0_AgAAAAsecret") && !masked.contains("file-token-1234"))
        #expect(masked.contains("echoed [hidden] and [hidden]"))
        #expect((try? JSONSerialization.jsonObject(with: Data(masked.utf8))) != nil)
        #expect(maskingSecrets(in: #"{"a":"pa\"ss"}"#, context: context) == #"{"a":"pa\"ss"}"#, "a secret with a quote is left alone")
    }

    /// A short secret (a ClickHouse password `true`) would rewrite the line's JSON literals: left to
    /// the tools' own masking of their text (review).
    @Test func aShortSecretLeavesTheLinesJSONAlone() {
        let context = CLIContext(environment: ["HOME": "/nonexistent", "METRIKA_CLICKHOUSE_PASSWORD": "true"],
                                 stdout: TextSink(), stderr: TextSink(), transport: CLIConventionsTests.NoNetwork())
        let line = #"{"jsonrpc":"2.0","id":1001,"result":{"isError":true}}"#
        #expect(maskingSecrets(in: line, context: context) == line)
    }
}
