import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI
@testable import MetrikaUseCases

/// `metrika logs` parses its options into one `LogsRequest`; every refusal is a usage error said
/// before any request (the `CLIConventionsTests.NoNetwork` transport records one as an issue).
@Suite("Logs command")
struct LogsCommandTests {
    static let dated = ["logs", "--counter", "1001", "--from", "2026-11-01", "--to", "2026-11-02"]

    @Test(arguments: [
        (["--source", "Pages", "--output", "v.tsv"], "--source must be visits or hits, not 'pages'"),
        (["--output", "v.tsv", "--clickhouse", "http://127.0.0.1:8123"], "Choose one of --output and --clickhouse"),
        ([], "Missing --output FILE|- or --clickhouse URL"),
        (["--late-days", "2", "--output", "v.tsv"], "--late-days applies to a run without --from/--to"),
        (
            ["--late-days", "61", "--clickhouse", "http://127.0.0.1:8123"],
            "--late-days must be a whole number from 0 to 60, not '61'"
        ),
        (["--output", "v.tsv", "--cluster", "web"], "--cluster loads ClickHouse shards; it does not go with --output"),
        (
            ["--clickhouse", "http://a:8123,http://b:8123"],
            "--clickhouse names 2 URLs: a sharded ClickHouse also needs --cluster NAME"
        ),
        (
            ["--fields", "ym:pv:URL", "--output", "v.tsv"],
            "--fields 'ym:pv:URL' belongs to the other source (visits fields start with ym:s:)"
        )
    ])
    func aDatedRunRefusesBeforeAnyRequest(extra: [String], message: String) async {
        let result = await CLIConventionsTests.run(Self.dated + extra)
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("Error: " + message), "\(result.err)")
        #expect(result.err.contains("Usage: metrika logs --counter ID --source visits|hits --from DATE"))
    }

    @Test(arguments: [
        (["--to", "2026-11-02", "--clickhouse", "http://127.0.0.1:8123"], "--to needs --from"),
        (
            ["--output", "v.tsv"],
            "Missing --from DATE (a run without dates continues a ClickHouse table; a file needs --from)"
        ),
        (["--from", "2026-13-01", "--output", "v.tsv"], "--from '2026-13-01' is not a date")
    ])
    func datesAreCheckedBeforeAnyRequest(extra: [String], message: String) async {
        let result = await CLIConventionsTests.run(["logs", "--counter", "1001"] + extra)
        #expect(result.code == 64, "\(result.err)")
        #expect(result.err.hasPrefix("Error: " + message), "\(result.err)")
    }

    @Test func aRunWithoutDatesAndNoEarlierLoadNamesTheTableAndTheDatabaseBeforeAnyRequest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-logs-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/h.sqlite"
        let result = await CLIConventionsTests.run([
            "logs", "--counter", "1001", "--clickhouse", "http://127.0.0.1:8123", "--db", database
        ])
        #expect(result.code == 64, "\(result.err)")
        #expect(
            result.err.hasPrefix(
                "Error: no earlier load of counter 1001's visits into 127.0.0.1:8123/metrika.visits is recorded in \(database); give --from DATE (and --to) for the first load"
            ),
            "\(result.err)")
    }

    @Test func theOptionsBecomeOneRequest() throws {
        let arguments = [
            "--counter", "1001", "--source", "HITS", "--from", "3daysAgo", "--fields", "URL", "--table", "raw.h",
            "--clickhouse", "http://a:8123, http://b:8124", "--cluster", "web"
        ]
        let options = try ArgumentParser.parse(arguments, options: LogsCommand.allOptions)
        let context = CLIContext(
            environment: ["HOME": "/nonexistent", "METRIKA_LOGS_POLL": "2"], stdout: TextSink(), stderr: TextSink(),
            transport: CLIConventionsTests.NoNetwork())
        let request = try LogsCommand.request(
            options, counterID: 1001, session: Session(context: context, options: options))

        #expect(request.source == .hits && request.counterID == 1001 && request.firstPollInterval == 2)
        #expect(request.fields == ["ym:pv:counterID", "ym:pv:date", "ym:pv:watchID", "ym:pv:URL", "ym:pv:clientID"])
        guard case .cluster(let cluster) = request.target else {
            Issue.record("\(request.target)")
            return
        }
        #expect(cluster.name == "web" && cluster.distributedTable == "raw.h")
        #expect(
            cluster.shards.map { "\($0.url.host ?? ""):\($0.url.port ?? 0)/\($0.qualifiedTable)" } == [
                "a:8123/raw.h_local", "b:8124/raw.h_local"
            ])
        guard case .range(let from, let to) = request.days else {
            Issue.record("\(request.days)")
            return
        }
        #expect(from == .daysAgo(3) && to == .daysAgo(1))
    }
}
