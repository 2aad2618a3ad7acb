import Foundation
import MetrikaRender
import Synchronization
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel
@testable import MetrikaServices
@testable import MetrikaSystem
@testable import MetrikaUseCases

/// The composition root every entry point builds: the world's seams and the run's selections in, the
/// services out — the config file read once, the selection's words in its errors, the deliverers'
/// children without the webhook's secret.
@Suite struct ServicesTests {
    struct NoNetwork: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            Issue.record("unexpected request to \(request.url)")
            throw CancellationError()
        }
    }

    final class Notes: Activity {
        let lines = Mutex<[String]>([])
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_795_953_600) }
        func note(_ line: String) { lines.withLock { $0.append(line) } }
        func progress(_ text: String, force: Bool) {}
        func endProgress() {}
    }

    struct FakeRasterizer: ChartRasterizer {
        func png(fromSVG svg: Data, scale: Double) async throws -> Data { Data(PNGImage.signature) }
    }

    /// A config home with `config.json` holding `text`, removed afterwards.
    final class Folder {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("metrika-services-\(UUID().uuidString)").path
        init(config: String? = nil) throws {
            try FileManager.default.createDirectory(atPath: path + "/metrika", withIntermediateDirectories: true)
            if let config { try Data(config.utf8).write(to: URL(fileURLWithPath: path + "/metrika/config.json")) }
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func world(_ environment: [String: String], rasterizer: (any ChartRasterizer)? = nil) -> ServicesWorld {
        let activity = Notes()
        return ServicesWorld(
            environment: environment, transport: NoNetwork(), streamingTransport: CurlTransport(), now: activity.now,
            sleep: { _ in }, rasterizer: rasterizer ?? RSVGConvertRasterizer(environment: environment, timeout: 7),
            secrets: KnownSecrets(), activity: activity)
    }

    /// Services over `environment` (HOME unusable unless given), the history at `database`.
    static func services(
        _ environment: [String: String] = [:], profile: ServicesSelection.Profile? = nil, database: String = ":memory:",
        rasterizer: (any ChartRasterizer)? = nil
    ) -> Services {
        Services(
            world: world(["HOME": "/nonexistent"].merging(environment) { $1 }, rasterizer: rasterizer),
            selection: ServicesSelection(profile: profile, databasePath: database))
    }

    @Test func theConfigFileIsReadOnceAndTheProfileIsTheSelections() throws {
        let home = try Folder(
            config: """
                {"counter": 1001, "profiles": {"agency": {"counter": [2001, 2002], "api_url": "http://127.0.0.1:9"}}}
                """)
        let agency = ServicesSelection.Profile(name: "agency", selectedBy: "--profile")
        let services = Self.services(["XDG_CONFIG_HOME": home.path], profile: agency)
        #expect(services.configReads == 0)
        #expect(try services.profile()?.name == "agency")
        #expect(try services.defaultCounters()?.ids == ["2001", "2002"])
        #expect(try services.apiBaseURL().absoluteString == "http://127.0.0.1:9")
        #expect(try services.profileDescription()?.hasPrefix("agency (--profile, ") == true)
        #expect(services.configReads == 1)
    }

    @Test func aProfileIsRefusedInTheWordsOfWhatNamedIt() throws {
        let home = try Folder(config: #"{"profiles": {"agency": {}}}"#)
        let environment = ["XDG_CONFIG_HOME": home.path]
        let blank = Self.services(environment, profile: .init(name: " ", selectedBy: "the profile box"))
        #expect {
            _ = try blank.profile()
        } throws: {
            ($0 as? UsageError)?.message == "the profile box needs a profile name"
        }
        let unknown = Self.services(environment, profile: .init(name: "nope", selectedBy: "--profile"))
        #expect(throws: ConfigError.self) { _ = try unknown.profile() }
        let none = Self.services(environment)
        #expect(try none.profile() == nil)
    }

    @Test func anOfflineRunWithoutAHistoryIsRefusedWithItsPath() async throws {
        let folder = try Folder()
        let path = folder.path + "/missing.sqlite"
        let services = Self.services(database: path)
        await #expect(throws: ServicesError.noHistoryOffline(path: path)) {
            _ = try await services.historyLoader(offline: true)
        }
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is created")
        let error = ServicesError.noHistoryOffline(path: "/h.sqlite")
        // The services name no option: each entry point words the parameter and the fix.
        #expect(error.message.hasPrefix("no history yet at /h.sqlite: offline reads only the history."))
        #expect(!error.message.contains("--") && !error.message.contains("metrika sync"))
        #expect(error.fix == .fillHistoryFirst)
        #expect(error.exitCode == ExitCode.config)
    }

    @Test func theHistoryIsOpenedOnceAndShared() async throws {
        let folder = try Folder()
        let services = Self.services(database: folder.path + "/h.sqlite")
        let first = try await services.history()
        #expect(try await services.history() === first)
        #expect(try await services.historyLoader(offline: true).store === first)
        await services.closeHistories()
    }

    /// The mail's charts are drawn by the run's rasterizer with its child in the mail's environment
    /// (no webhook secret), its bounds kept; a rasterizer that runs no child is used as it is.
    @Test func theMailDelivererDrawsInTheChildrensEnvironment() throws {
        let slack = "https://hooks.example.com/services/T000/B000/secretsecret"
        let environment = ["PATH": "/usr/bin", "SLACK": slack]
        let services = Self.services(environment)
        let webhook = try #require(try services.webhook(given: slack, givenBy: "--webhook"))
        #expect(services.secrets.contains(slack))
        let sender = try MIMEAddress("me@example.com")
        let mail = services.mailDeliverer(
            sender: sender, recipients: [sender], sendmail: "/usr/sbin/sendmail", hiding: webhook)
        #expect(mail.childEnvironment == ["HOME": "/nonexistent", "PATH": "/usr/bin"])
        let drawn = try #require(mail.rasterizer as? RSVGConvertRasterizer)
        #expect(drawn.environment == mail.childEnvironment)
        #expect(drawn.timeout == 7, "the run's rasterizer's bounds are kept")

        let fake = Self.services(environment, rasterizer: FakeRasterizer())
        let fakeMail = fake.mailDeliverer(
            sender: sender, recipients: [sender], sendmail: "/usr/sbin/sendmail", hiding: webhook)
        #expect(fakeMail.rasterizer is FakeRasterizer)
    }

    @Test func aWorldLimitedToThreeRequestsWrapsItsTransport() {
        let limited = Self.world([:]).limitingRequests(to: 3)
        let transport = limited.transport as? ParallelLimitTransport
        #expect(transport?.base is NoNetwork)
    }
}
