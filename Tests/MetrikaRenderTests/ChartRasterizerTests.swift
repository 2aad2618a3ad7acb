import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaSystem

/// `RSVGConvertRasterizer`: the real rsvg-convert draws a sharp PNG; a missing, lying, hanging or
/// flooding program is a clear exit-69 error within its time limit; secrets never reach the child.
@Suite(.ownThreads) struct ChartRasterizerTests {
    static let rsvgConvert = "/usr/bin/rsvg-convert"
    static var hasRSVGConvert: Bool { FileManager.default.isExecutableFile(atPath: rsvgConvert) }

    /// A shell script standing in for rsvg-convert, in its own temporary directory.
    static func fakeProgram(_ body: String) throws -> (directory: URL, path: String) {
        let directory = try ChartTestSupport.temporaryDirectory()
        let path = directory.appendingPathComponent("rsvg-convert").path
        try ExecutableFile.write("#!/bin/sh\n" + body + "\n", to: path)
        return (directory, path)
    }

    static let svg = Data(SVGLineChartTests.thirtyDays().render().utf8)

    @Test(.enabled(if: hasRSVGConvert, "needs rsvg-convert (apt-get install librsvg2-bin); .ci/run installs it"))
    func rsvgConvertDrawsTheChartAtTwiceItsSize() async throws {
        let rasterizer = RSVGConvertRasterizer(environment: ["PATH": "/usr/bin:/bin"])
        let png = try await rasterizer.png(fromSVG: Self.svg, scale: 2)
        let size = try #require(PNGImage.size(of: png))
        #expect(size.width == 1600 && size.height == 800, "\(size)")
        #expect(png.count > 10_000, "a real chart, not an empty image: \(png.count) bytes")
    }

    @Test func aMissingProgramNamesTheInstallCommand() async throws {
        let empty = try ChartTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        let rasterizer = RSVGConvertRasterizer(environment: ["PATH": empty.path])
        let error = try await #require(throws: ChartRasterizerError.self) {
            try await rasterizer.png(fromSVG: Self.svg, scale: 2)
        }
        #expect(error.exitCode == 69)
        #expect(error.message.contains("rsvg-convert is not installed"))
        #expect(error.message.contains("apt-get install librsvg2-bin"))
        #expect(error.message.contains("brew install librsvg"))
    }

    @Test func theOverrideMustNameAProgram() async throws {
        let rasterizer = RSVGConvertRasterizer(environment: [
            "PATH": "/usr/bin:/bin", "METRIKA_RSVG_CONVERT": "/nonexistent/rsvg"
        ])
        let error = try await #require(throws: ChartRasterizerError.self) {
            try await rasterizer.png(fromSVG: Self.svg, scale: 2)
        }
        #expect(error.message.contains("METRIKA_RSVG_CONVERT names /nonexistent/rsvg"))
    }

    @Test func anAnswerThatIsNotAPNGIsRefused() async throws {
        let fake = try Self.fakeProgram("cat > /dev/null; printf '<html>not a picture</html>'")
        defer { try? FileManager.default.removeItem(at: fake.directory) }
        let rasterizer = RSVGConvertRasterizer(environment: ["PATH": fake.directory.path + ":/usr/bin:/bin"])
        let error = try await #require(throws: ChartRasterizerError.self) {
            try await rasterizer.png(fromSVG: Self.svg, scale: 2)
        }
        #expect(error.message.contains("did not answer with a PNG image"))
    }

    @Test func aFailingProgramIsReportedWithItsOwnWordsCleaned() async throws {
        let fake = try Self.fakeProgram("cat > /dev/null; printf 'bad svg\\033[31m at line 3\\n' >&2; exit 3")
        defer { try? FileManager.default.removeItem(at: fake.directory) }
        let rasterizer = RSVGConvertRasterizer(environment: ["PATH": fake.directory.path + ":/usr/bin:/bin"])
        let error = try await #require(throws: ChartRasterizerError.self) {
            try await rasterizer.png(fromSVG: Self.svg, scale: 2)
        }
        #expect(error.message.contains("failed (exit status 3): bad svg[31m at line 3"), "\(error.message)")
        #expect(!error.message.contains("\u{1B}"), "no escape sequence reaches the terminal")
    }

    @Test func aHangingProgramIsKilledAtTheTimeLimit() async throws {
        // exec: the shell becomes sleep, so killing the child leaves nothing holding the pipes.
        let fake = try Self.fakeProgram("exec sleep 60")
        defer { try? FileManager.default.removeItem(at: fake.directory) }
        let rasterizer = RSVGConvertRasterizer(
            environment: ["PATH": fake.directory.path + ":/usr/bin:/bin"], timeout: 1)
        // The kill comes at the limit from the child's own watchdog thread, and the test awaits it on a
        // queue of its own (`offThePool`): a loaded suite holding the cooperative pool cannot delay it.
        let (error, elapsed) = try await offThePool {
            try await #require(throws: ChartRasterizerError.self) {
                try await rasterizer.png(fromSVG: Self.svg, scale: 2)
            }
        }
        #expect(error.message.contains("took longer than 1 s"))
        #expect(elapsed < 5, "took \(elapsed) s")
    }

    @Test func aGrandchildHoldingThePipesDoesNotHangMetrika() async throws {
        // Without exec the shell forks sleep, which keeps stdout open after the shell is killed.
        let fake = try Self.fakeProgram("sleep 60; true")
        defer { try? FileManager.default.removeItem(at: fake.directory) }
        let rasterizer = RSVGConvertRasterizer(
            environment: ["PATH": fake.directory.path + ":/usr/bin:/bin"], timeout: 1)
        let (_, elapsed) = try await offThePool {
            try await #require(throws: ChartRasterizerError.self) {
                try await rasterizer.png(fromSVG: Self.svg, scale: 2)
            }
        }
        #expect(elapsed < 5, "took \(elapsed) s") // the 1 s limit and the readers' 2 s grace, not the grandchild's 60 s
    }

    @Test func aFloodOfOutputIsCut() async throws {
        let fake = try Self.fakeProgram("cat > /dev/null; exec cat /dev/zero")
        defer { try? FileManager.default.removeItem(at: fake.directory) }
        let rasterizer = RSVGConvertRasterizer(
            environment: ["PATH": fake.directory.path + ":/usr/bin:/bin"], timeout: 10, maximumOutput: 1 << 20)
        let (error, elapsed) = try await offThePool {
            try await #require(throws: ChartRasterizerError.self) {
                try await rasterizer.png(fromSVG: Self.svg, scale: 2)
            }
        }
        #expect(error.message.contains("printed more than 1048576 bytes"))
        #expect(elapsed < 5, "took \(elapsed) s") // cut at 1 MiB, not run to its 10 s limit
    }

    @Test func theChildGetsNoSecretsAndTheSVGOnStdin() async throws {
        let directory = try ChartTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = directory.appendingPathComponent("seen").path
        // Records its environment and input, then answers with a PNG signature + IHDR.
        let fake = try Self.fakeProgram(
            "env > '\(seen).env'; cat > '\(seen).svg'; printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\rIHDR\\000\\000\\006\\100\\000\\000\\003\\040'"
        )
        defer { try? FileManager.default.removeItem(at: fake.directory) }
        let environment = [
            "PATH": fake.directory.path + ":/usr/bin:/bin", "HOME": directory.path, "METRIKA_TOKEN": "secret-token-1",
            "METRIKA_CLIENT_SECRET": "secret-2", "METRIKA_CLICKHOUSE_PASSWORD": "secret-3"
        ]
        let png = try await RSVGConvertRasterizer(environment: environment).png(fromSVG: Self.svg, scale: 2)
        #expect(PNGImage.size(of: png)?.width == 1600)
        let childEnvironment = try String(contentsOfFile: seen + ".env", encoding: .utf8)
        #expect(!childEnvironment.contains("secret"), "\(childEnvironment)")
        #expect(!childEnvironment.contains("METRIKA_"))
        #expect(
            childEnvironment.contains("HOME=\(directory.path)"), "the rest of the environment (fontconfig's HOME) stays"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: seen + ".svg")) == Self.svg)
    }

    @Test func pngSizeIsReadFromTheHeaderOnly() async {
        #expect(PNGImage.size(of: Data("<svg/>".utf8)) == nil)
        #expect(PNGImage.size(of: Data(PNGImage.signature)) == nil)
        let header = Data(PNGImage.signature + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 6, 64, 0, 0, 3, 32])
        #expect(PNGImage.size(of: header)?.width == 1600 && PNGImage.size(of: header)?.height == 800)
    }
}
