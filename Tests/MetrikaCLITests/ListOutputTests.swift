import Foundation
import MetrikaModel
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

/// Issue 36 item 6: `metrika counters --json` carries the same members as MCP's `list_counters`
/// (Render's `CounterListing`), the currency among them; its table and CSV stay as they were.
@Suite("List outputs of the command line")
struct ListOutputTests {
    /// Answers the counters list with one counter; nothing else is asked.
    final class OneCounterAPI: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard request.url.path == "/management/v1/counters" else {
                return HTTPResponse(status: 404, body: Data("{}".utf8))
            }
            let counter =
                #"{"id":1001,"name":"Shop","site":"shop.example","status":"Active","permission":"own","owner_login":"demo-user","time_zone_name":"Europe/Moscow"}"#
            return HTTPResponse(status: 200, body: Data(#"{"rows":1,"counters":[\#(counter)]}"#.utf8))
        }
    }

    static func run(_ arguments: [String]) async -> (status: Int32, stdout: String) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("metrika-lists-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let out = TextSink()
        let err = TextSink()
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
            "LC_ALL": "C",
            "METRIKA_API_URL": "http://127.0.0.1:9", "METRIKA_TOKEN": "demo-token"
        ]
        let context = CLIContext(environment: environment, stdout: out, stderr: err, transport: OneCounterAPI())
        return (await CLI.run(arguments: arguments, context: context), out.text)
    }

    @Test("counters --json: the members of list_counters, owner_login and currency (null: no history) included")
    func countersJSONMembers() async throws {
        let run = await Self.run(["counters", "--json"])
        #expect(run.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let counter = try #require((document["counters"] as? [[String: Any]])?.first)
        #expect(
            Set(counter.keys) == ["id", "name", "site", "status", "permission", "owner_login", "time_zone", "currency"])
        #expect(counter["currency"] is NSNull)
        #expect(counter["owner_login"] as? String == "demo-user")
        // Member order as documented (docs/json.md): currency last.
        #expect(run.stdout.range(of: "\"time_zone\"")!.lowerBound < run.stdout.range(of: "\"currency\"")!.lowerBound)
    }

    @Test("counters --csv keeps its columns")
    func countersCSV() async {
        let run = await Self.run(["counters", "--csv"])
        #expect(
            run.stdout
                == "id,name,site,status,permission,owner_login,time_zone\n1001,Shop,shop.example,Active,own,demo-user,Europe/Moscow\n"
        )
    }
}
