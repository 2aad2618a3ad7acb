import Foundation
import Testing

/// `-v` against the real binary and the simulator (the in-process conventions live in MetrikaCLITests).
@Suite("Verbose", .blockingLanes)
struct VerboseEndToEndTests {
    /// `-v` is `--verbose`: the real binary against the simulator logs each request on stderr.
    @Test func shortVIsVerbose() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let result = try metrika(["counters", "-v"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("GET http://127.0.0.1:\(api.port)/management/v1/counters"), "\(result.stderr)")
        let help = try metrika(["counters", "--help"], environment: metrikaEnvironment(api: api, home: home.path))
        #expect(help.stdout.contains("-v, --verbose"))
    }
}
