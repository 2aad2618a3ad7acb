import Foundation
import MetrikaAPI
import MetrikaRender
import MetrikaTestSupport
import Synchronization
import Testing

@testable import MetrikaMCP

/// The pieces of `metrika mcp --listen` that need no socket: the digest, the members file, a member's
/// counters, the 2026-07-28 header rule, form bodies, the addresses a client document may live at.
@Suite("MCP remote pieces")
struct RemoteTests {
    @Test func sha256MatchesTheStandardsVectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(String(repeating: "a", count: 1000)).hasPrefix("41edece42d63e8d9bf515a9ba6932e1c"))
    }

    @Test func pkceS256IsTheRFCsExample() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(Secrets.base64URL(SHA256.digest(Array(verifier.utf8))) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(Secrets.random().count == 43)
        #expect(Secrets.equal("abc", "abc") && !Secrets.equal("abc", "abd") && !Secrets.equal("abc", "ab"))
    }

    @Test func theMembersFileIsTheUsersAloneAndSeenAgainWhenItChanges() throws {
        let directory = NSTemporaryDirectory() + "metrika-members-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = TeamMembersFile(path: TeamMembersFile.path(configDirectory: directory))
        #expect(try file.members().isEmpty)
        try file.update {
            $0.append(
                TeamMember(
                    name: "alice", id: "a1", counters: [1001], created: Date(timeIntervalSince1970: 0),
                    tokenHash: SHA256.hex("secret"), approval: nil))
        }
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try file.members().map(\.name) == ["alice"])
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(!text.contains("secret"))
        // Another process (`token revoke`) changes it: the next read sees the change.
        let other = TeamMembersFile(path: file.path)
        try other.update { $0.removeAll() }
        #expect(try file.members().isEmpty)
    }

    /// The running server reads and changes the members file on the file's own queue, so that blocking
    /// file I/O (stat, read, flock, fsync) holds no thread of the cooperative pool: with that queue held,
    /// neither a read nor a change gets done, and both are once it is free.
    @Test(.ownThreads) func theServerReadsTheMembersFileOffThePool() async throws {
        let directory = NSTemporaryDirectory() + "metrika-members-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = TeamMembersFile(path: TeamMembersFile.path(configDirectory: directory))
        let gate = DispatchSemaphore(value: 0)
        file.queue.async { gate.wait() }
        let finished = Finished()
        let reader = Task.detached {
            _ = try? await file.current()
            finished.count.add(1, ordering: .relaxed)
        }
        let changer = Task.detached {
            _ = try? await file.change { $0.removeAll() }
            finished.count.add(1, ordering: .relaxed)
        }
        try await Task.sleep(for: .milliseconds(100))
        let early = finished.count.load(ordering: .relaxed)
        gate.signal()
        _ = await (reader.value, changer.value)
        #expect(early == 0, "the members file was read or changed on a thread of the cooperative pool")
        #expect(finished.count.load(ordering: .relaxed) == 2)
    }

    @Test func aMemberNamingAnotherCounterIsRefusedNamingIt() {
        let scope = CounterScope(member: "bob", counters: [1001])
        #expect(scope.refusal([("counter_ids", .array([.number(1001)]))]) == nil)
        let refusal = scope.refusal([("counter_ids", .array([.number(1001), .number(1002)]))])
        #expect(refusal?.hasPrefix("Access denied to counter 1002: ") == true, "\(refusal ?? "")")
        #expect(scope.refusal([("counter_id", .number(7))])?.contains("counter 7") == true)
        let completed = scope.completing([], for: "check_alerts")
        #expect(completed.first?.0 == "counter_ids")
        #expect(scope.completing([], for: "list_metrics").isEmpty)
    }

    @Test func statelessHeadersMustRepeatTheBody() {
        let params = JSONValue.object([
            ("name", .string("get_report")),
            (
                "_meta",
                .object([
                    (MCPRevision.protocolVersionKey, .string("2026-07-28")),
                    (MCPRevision.clientCapabilitiesKey, .object([]))
                ])
            )
        ])
        let good = ["mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_report"]
        #expect(RemoteMCPServer.headerMismatch(good, method: "tools/call", params: params) == nil)
        var encoded = good
        encoded["mcp-name"] = "=?base64?" + Data("get_report".utf8).base64EncodedString() + "?="
        #expect(RemoteMCPServer.headerMismatch(encoded, method: "tools/call", params: params) == nil)
        var wrong = good
        wrong["mcp-name"] = "list_goals"
        #expect(RemoteMCPServer.headerMismatch(wrong, method: "tools/call", params: params) != nil)
        wrong = good
        wrong["mcp-method"] = nil
        #expect(RemoteMCPServer.headerMismatch(wrong, method: "tools/call", params: params) != nil)
        #expect(RemoteMCPServer.headerMismatch([:], method: "tools/list", params: nil) == nil)
    }

    /// DNS rebinding: the name looks public when the server checks it and is private when libcurl
    /// connects. The check is on the socket libcurl opens, so the document is still refused, with the
    /// same words as a name that is private at once. (A loopback listener serves the document; the
    /// check's lookup is a stand-in that says "public".)
    @Test(.ownThreads) func aClientDocumentBehindARebindingNameIsRefused() async throws {
        let document = #"{"client_id":"x","redirect_uris":["https://x.example/cb"]}"#
        // Served on the connection's own thread (`quick`): a loaded test run's busy pool never delays it.
        let listener = try HTTPListener(host: "127.0.0.1", port: 0, quick: { _ in .json(200, document) }) { _ in
            .json(200, document)
        }
        defer { listener.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/client.json"))
        let transport = CurlTransport()
        // The listener answers: a loopback document is fetched where loopback is allowed.
        let loopback = CurlClientMetadataFetcher(transport: transport, resolve: { _ in ["127.0.0.1"] })
        #expect(String(decoding: try await loopback.fetch(url, allowLoopback: true), as: UTF8.self) == document)
        // Private at once: refused before any fetch.
        await #expect(throws: OAuthServer.ClientRefusal(reason: "127.0.0.1 is a private or local address")) {
            try await loopback.fetch(url, allowLoopback: false)
        }
        // Public to the check, private to libcurl: refused all the same.
        let rebinding = CurlClientMetadataFetcher(transport: transport, resolve: { _ in ["93.184.216.34"] })
        await #expect(throws: OAuthServer.ClientRefusal(reason: "127.0.0.1 is a private or local address")) {
            try await rebinding.fetch(url, allowLoopback: false)
        }
    }

    @Test func formBodiesAndClientAddresses() {
        #expect(FormBody.parse(Array("a=1&b=x+y%2Fz&c".utf8)) == ["a": "1", "b": "x y/z", "c": ""])
        for address in [
            "10.0.0.1", "127.0.0.1", "169.254.169.254", "192.168.1.1", "172.16.0.1", "100.64.0.1", "::1",
            "fe80::1", "fd00::1", "::ffff:10.0.0.1", "0.0.0.0"
        ] {
            #expect(!CurlClientMetadataFetcher.isPublic(address), "\(address)")
        }
        for address in ["8.8.8.8", "172.32.0.1", "2a00:1450::1"] {
            #expect(CurlClientMetadataFetcher.isPublic(address), "\(address)")
        }
    }
}

/// How many of a test's tasks are done.
private final class Finished: Sendable {
    let count = Atomic<Int>(0)
}
