import Foundation
import MetrikaTestSupport
import Testing

/// `metrika mcp --listen` end to end: the built binary serves a team over HTTP, driven by
/// Support/mcp_http_driver.py — the official Python SDK's Streamable HTTP client with bearer headers,
/// raw requests for the refusals, and a scripted OAuth client through a loopback client ID metadata
/// document. Skipped (with the install hint) without python3 and the `mcp` package.
@Suite("MCP over HTTP end to end", .blockingLanes, .stops(RemoteSimulator.shared))
struct MCPRemoteEndToEndTests {
    static var simulator: SuiteFixture<FakeAPI> { RemoteSimulator.shared }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Support/mcp_http_driver.py"
        ).path
    }

    func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }
    func array(_ value: Any?) -> [Any] { value as? [Any] ?? [] }

    /// The first step's result of an SDK run the driver observed.
    func firstResult(_ run: Any?, _ index: Int = 0) -> [String: Any] {
        let results = array(object(run)["results"])
        return results.count > index ? object(object(results[index])["result"]) : [:]
    }

    func text(_ result: [String: Any]) -> String {
        array(result["content"]).compactMap { object($0)["text"] as? String }.joined(separator: "\n")
    }

    func canonical(_ value: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])).map {
            String(decoding: $0, as: UTF8.self)
        } ?? "\(value)"
    }

    @Test func aTeamServerOverHTTP() throws {
        guard let python = MCPDriver.python else {
            try Test.cancel("skipped: python3 with the MCP SDK is missing (\(MCPDriver.installHint))")
        }
        let api = try Self.simulator.get()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_DB": home.path + "/history.sqlite"])
        let (from, to) = MCPToolsEndToEndTests.range
        let spec: [String: Any] = [
            "metrika": Binaries.metrika, "env": environment, "api": api.baseURL, "allowed": 1001, "other": 1002,
            "report": ["counter_ids": [1001], "from": from, "to": to, "metrics": ["visits", "users"]]
        ]
        let input = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let run = try runProcess(
            python, [Self.script], environment: ProcessInfo.processInfo.environment, stdin: input, timeout: 180)
        if run.status == 3 {
            try Test.cancel("skipped: the Python MCP SDK is missing (\(MCPDriver.installHint))")
        }
        #expect(run.status == 0, "\(run.stderr)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let tokens = array(seen["tokens"]).compactMap { $0 as? String }

        // token add prints one line; list shows no token.
        #expect(array(seen["token_add_lines"]).compactMap { $0 as? Int } == [1, 1])
        let listed = canonical(seen["list"] ?? [:])
        #expect(tokens.count == 2 && tokens.allSatisfy { !listed.contains($0) }, "\(listed)")
        #expect(listed.contains("\"alice\"") && listed.contains("[1001]"), "\(listed)")

        // The same answer over HTTP (both revisions) as over stdio.
        #expect(object(seen["legacy"])["protocol_version"] as? String == "2025-11-25")
        #expect(object(seen["stateless"])["protocol_version"] as? String == "2026-07-28")
        let tools = array(firstResult(seen["legacy"])["tools"])
        #expect(tools.count == 8, "\(tools)")
        let overHTTP = firstResult(seen["legacy"], 1)
        let stateless = firstResult(seen["stateless"])
        let stdio = object(object(array(seen["stdio"]).first)["result"])
        #expect(overHTTP["isError"] as? Bool == false, "\(overHTTP)")
        #expect(overHTTP["structuredContent"] != nil)
        #expect(canonical(overHTTP["structuredContent"] ?? 0) == canonical(stdio["structuredContent"] ?? 1))
        #expect(canonical(overHTTP["content"] ?? 0) == canonical(stdio["content"] ?? 1))
        #expect(canonical(stateless["structuredContent"] ?? 0) == canonical(stdio["structuredContent"] ?? 1))

        // A member limited to counter 1001.
        let bobCounters = firstResult(seen["bob"])
        let ids = array(object(bobCounters["structuredContent"])["counters"]).compactMap { object($0)["id"] as? Int }
        #expect(ids == [1001], "\(bobCounters)")
        let outside = firstResult(seen["bob"], 1)
        #expect(outside["isError"] as? Bool == true)
        #expect(text(outside).contains("1002"), "\(outside)")

        // Progress over server-sent events; a slow call does not hold up another member's.
        let progress = object(array(object(seen["progress"])["results"]).first)
        #expect(!array(progress["progress"]).isEmpty, "\(progress)")
        #expect(object(progress["result"])["isError"] as? Bool == false, "\(progress)")
        let slow = object(array(object(object(seen["concurrent"])["slow"])["results"]).first)
        let quick = object(array(object(object(seen["concurrent"])["quick"])["results"]).first)
        #expect((slow["seconds"] as? Double ?? 0) >= 1.8, "\(slow)")
        #expect((quick["seconds"] as? Double ?? 9) < 1.5, "\(quick)")

        // notifications/cancelled over HTTP: a member cancels its own call, never another member's.
        let cancel = object(seen["cancel"])
        #expect(object(cancel["foreign_cancel"])["status"] as? Int == 202, "\(cancel)")
        #expect(object(cancel["own_cancel"])["status"] as? Int == 202, "\(cancel)")
        let kept = object(cancel["kept"])
        let keptBody = (try? JSONSerialization.jsonObject(with: Data((kept["body"] as? String ?? "").utf8))) ?? [:]
        #expect(object(object(keptBody)["result"])["isError"] as? Bool == false, "\(kept)")
        #expect((kept["seconds"] as? Double ?? 0) >= 1.8, "\(kept)")
        let cancelled = object(cancel["cancelled"])
        let cancelledBody = (try? JSONSerialization.jsonObject(with: Data((cancelled["body"] as? String ?? "").utf8)))
        #expect(cancelled["status"] as? Int == 200, "\(cancelled)")
        #expect(object(object(cancelledBody)["error"])["code"] as? Int == -32800, "\(cancelled)")
        #expect(object(cancelledBody)["id"] as? Int == 42, "\(cancelled)")
        #expect((cancelled["seconds"] as? Double ?? 9) < 1.7, "\(cancelled)")

        // Refusals.
        func status(_ key: String) -> Int? { object(seen[key])["status"] as? Int }
        func header(_ key: String, _ name: String) -> String? { object(object(seen[key])["headers"])[name] as? String }
        #expect(status("no_token") == 401)
        let challenge = try #require(header("no_token", "www-authenticate"))
        #expect(challenge.hasPrefix("Bearer resource_metadata=\"http://127.0.0.1:"), "\(challenge)")
        #expect(challenge.hasSuffix("/.well-known/oauth-protected-resource\""), "\(challenge)")
        #expect(status("unknown_token") == 401)
        #expect(status("bad_origin") == 403)
        #expect(status("good_origin") == 200)
        for method in ["get", "delete", "put"] {
            #expect(status(method) == 405, "\(method)")
            #expect(header(method, "allow") == "POST", "\(method)")
        }
        #expect(status("bad_version") == 400)
        #expect(status("sse_only") == 200)
        #expect(header("sse_only", "content-type") == "text/event-stream")
        #expect((object(seen["sse_only"])["body"] as? String ?? "").hasPrefix("event: message\ndata: {"))
        #expect(header("json_only", "content-type") == "application/json")
        #expect(status("modern_mismatch") == 400)
        #expect((object(seen["modern_mismatch"])["body"] as? String ?? "").contains("-32020"))
        #expect(status("modern_ok") == 200, "\(object(seen["modern_ok"]))")
        #expect(status("too_large") == 413)

        // OAuth.
        let resourceMetadata = object(seen["resource_metadata"])
        let serverMetadata = object(seen["server_metadata"])
        #expect((resourceMetadata["resource"] as? String)?.hasSuffix("/mcp") == true)
        #expect(array(resourceMetadata["authorization_servers"]).count == 1)
        #expect(serverMetadata["client_id_metadata_document_supported"] as? Bool == true)
        #expect(array(serverMetadata["code_challenge_methods_supported"]).compactMap { $0 as? String } == ["S256"])
        #expect(array(serverMetadata["token_endpoint_auth_methods_supported"]).compactMap { $0 as? String } == ["none"])
        #expect(seen["approval_lines"] as? Int == 1)
        let page = object(seen["authorize_page"])
        #expect(page["status"] as? Int == 200)
        #expect((page["body"] as? String ?? "").contains("Scripted Assistant"))
        #expect(status("wrong_code") == 400)
        #expect((object(seen["wrong_code"])["body"] as? String ?? "").contains("not valid"))
        #expect(status("granted") == 302)
        #expect(seen["granted_state"] as? String == "s1")
        #expect(object(object(seen["wrong_verifier"])["json"])["error"] as? String == "invalid_grant")
        #expect(object(object(seen["reused_code"])["json"])["error"] as? String == "invalid_grant")
        let issued = object(object(seen["issued"])["json"])
        #expect(issued["token_type"] as? String == "Bearer", "\(issued)")
        #expect((issued["expires_in"] as? Int ?? 0) <= 3600 && (issued["expires_in"] as? Int ?? 0) > 0)
        let carolCounters = firstResult(seen["oauth_session"])
        #expect(
            array(object(carolCounters["structuredContent"])["counters"]).compactMap { object($0)["id"] as? Int }
                == [1001], "\(carolCounters)")
        #expect(status("refreshed") == 200)
        #expect(object(object(seen["old_refresh"])["json"])["error"] as? String == "invalid_grant")
        #expect(status("renewed_session") == 200)
        #expect(seen["first_exit_status"] as? Int == 0)
        #expect(status("after_restart") == 200, "\(object(seen["after_restart"]))")
        #expect(array(seen["five_wrong"]).compactMap { $0 as? Int } == [400, 400, 400, 400, 400])
        #expect((object(seen["after_five"])["body"] as? String ?? "").contains("ended"))
        #expect(status("revoked_access") == 401)
        #expect(object(object(seen["revoked_refresh"])["json"])["error"] as? String == "invalid_grant")
        #expect(status("foreign_document") == 400)

        // A revoked member mid-session: the call before works, the call after is refused.
        let revoked = array(object(seen["revoked"])["results"])
        #expect(object(object(revoked.first)["result"])["isError"] as? Bool == false, "\(revoked)")
        #expect(object(revoked.last)["error"] != nil, "\(revoked)")
        #expect(status("revoked_raw") == 401)

        // The log: one line per call, never a token; a clean stop.
        let log = seen["stderr"] as? String ?? ""
        #expect(log.contains("member=alice tool=get_report counters=1001 "), "\(log)")
        #expect(log.contains("member=bob tool=get_report counters=1002 ") && log.contains("outcome=tool-error"))
        #expect(log.contains("member=alice tool=list_counters counters=- ") && log.contains("outcome=cancelled"))
        let secrets = tokens + [issued["access_token"] as? String, issued["refresh_token"] as? String].compactMap { $0 }
        for secret in secrets where !secret.isEmpty { #expect(!log.contains(secret), "a token in the log") }
        #expect(seen["exit_status"] as? Int == 0, "\(log)")
    }

    @Test func offLoopbackNeedsAnHTTPSPublicURLAndTokenWordsAreChecked() throws {
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: nil, home: home.path)
        let open = try metrika(["mcp", "--listen", "0.0.0.0:0"], environment: environment)
        #expect(open.status == 64 && open.stderr.contains("--public-url"), "\(open.stderr)")
        let plain = try metrika(
            ["mcp", "--listen", "0.0.0.0:0", "--public-url", "http://example.com"], environment: environment)
        #expect(plain.status == 64, "\(plain.stderr)")
        let stray = try metrika(["mcp", "--public-url", "https://example.com"], environment: environment)
        #expect(stray.status == 64, "\(stray.stderr)")
        let badName = try metrika(["mcp", "token", "add", "a b"], environment: environment)
        #expect(badName.status == 64 && badName.stdout.isEmpty)
        let unknown = try metrika(["mcp", "token", "revoke", "nobody"], environment: environment)
        #expect(unknown.status == 64, "\(unknown.stderr)")
        let added = try metrika(["mcp", "token", "add", "dana"], environment: environment)
        #expect(added.status == 0 && added.stdoutLines.count == 1 && added.stderr.isEmpty)
        let again = try metrika(["mcp", "token", "add", "dana"], environment: environment)
        #expect(again.status == 64 && again.stdout.isEmpty, "\(again.stderr)")
        let listed = try metrika(["mcp", "token", "list"], environment: environment)
        let token = added.stdout.trimmingCharacters(in: .newlines)
        #expect(listed.stdout.contains("dana") && !listed.stdout.contains(token))
        let file = home.path + "/config/metrika/mcp-members.json"
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

extension MCPRemoteEndToEndTests {
    /// `mcp token list`: an aligned table (by display width: a Cyrillic name lines up), a clear line when
    /// there is no one yet, and `--json` as it was.
    @Test func tokenListIsAnAlignedTable() throws {
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: nil, home: home.path, extra: ["METRIKA_NOW": "2026-12-07T10:00:00Z"])
        let empty = try metrika(["mcp", "token", "list"], environment: environment)
        #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty.stdout)")
        #expect(empty.stderr == "No members yet: metrika mcp token add NAME [--counters ID,…] [--oauth]\n")
        for arguments in [["dana"], ["даша", "--counters", "1001,1002"]] {
            let added = try metrika(["mcp", "token", "add"] + arguments, environment: environment)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let listed = try metrika(["mcp", "token", "list"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(
            listed.stdout == """
                Name  Counters   Created               Last used
                ────  ─────────  ────────────────────  ─────────
                dana  all        2026-12-07T10:00:00Z  never
                даша  1001,1002  2026-12-07T10:00:00Z  never

                """, "\(listed.stdout)")
        let json = try metrika(["mcp", "token", "list", "--json"], environment: environment)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let names = (document["members"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["dana", "даша"] && document["version"] as? Int == 1, "\(json.stdout)")
    }
}

/// The simulator of the HTTP suite (stopped at its end).
enum RemoteSimulator {
    static let shared = FakeAPI.shared()
}
