import Foundation
import MetrikaSystem
import Testing

@testable import MetrikaAPI
@testable import MetrikaCLI

/// Where logs and sync find ClickHouse: --clickhouse/--cluster > METRIKA_CLICKHOUSE_URL/_CLUSTER >
/// clickhouse_url/clickhouse_cluster in config.json.
@Suite("ClickHouse options")
struct ClickHouseOptionsTests {
    static func session(_ arguments: [String], config: String, environment: [String: String] = [:]) throws -> (
        Session, SessionTests.ConfigHome
    ) {
        let home = try SessionTests.ConfigHome(config)
        let options = try ArgumentParser.parse(
            arguments, options: [OptionSpec("cluster", value: "NAME", help: "")] + TokenOptions.specs)
        let context = CLIContext(
            environment: ["HOME": "/nonexistent", "XDG_CONFIG_HOME": home.path].merging(environment) { $1 },
            stdout: TextSink(), stderr: TextSink(), transport: CLIConventionsTests.NoNetwork())
        return (Session(context: context, options: options), home)
    }

    @Test func theCommandLineBeatsTheEnvironmentWhichBeatsTheConfigFile() throws {
        let config = #"{"clickhouse_url": ["http://ch1:8123", "http://ch2:8123"], "clickhouse_cluster": "web"}"#
        let (fromConfig, home1) = try Self.session([], config: config)
        #expect(try ClickHouseOptions.defaultURL(session: fromConfig) == "http://ch1:8123,http://ch2:8123")
        #expect(try ClickHouseOptions.cluster(fromConfig.options, session: fromConfig) == "web")
        let (fromEnvironment, home2) = try Self.session(
            [], config: config,
            environment: ["METRIKA_CLICKHOUSE_URL": "http://e:8123", "METRIKA_CLICKHOUSE_CLUSTER": "env"])
        #expect(try ClickHouseOptions.defaultURL(session: fromEnvironment) == "http://e:8123")
        #expect(try ClickHouseOptions.cluster(fromEnvironment.options, session: fromEnvironment) == "env")
        let (fromOption, home3) = try Self.session(
            ["--cluster", "opt"], config: config, environment: ["METRIKA_CLICKHOUSE_CLUSTER": "env"])
        #expect(try ClickHouseOptions.cluster(fromOption.options, session: fromOption) == "opt")
        _ = (home1, home2, home3)
    }

    @Test(arguments: [#"{"clickhouse_url": []}"#, #"{"clickhouse_url": [1]}"#, #"{"clickhouse_cluster": 5}"#])
    func aClickHouseMemberOfTheWrongShapeIsAConfigurationError(config: String) throws {
        let (session, home) = try Self.session([], config: config)
        #expect(throws: ConfigError.self) { _ = try ClickHouseOptions.defaultURL(session: session) }
        _ = home
    }
}
