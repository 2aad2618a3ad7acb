import Foundation
import MetrikaModel

/// PNG through librsvg's `rsvg-convert`, run as a child process: SVG on its stdin, PNG on its stdout.
///
/// Why a child and not the library linked in: linking librsvg would make `librsvg2-dev` (and cairo,
/// glib, pango headers) a build-time requirement for everyone, including users who never draw a PNG;
/// as a program it is an optional run-time dependency (`apt-get install librsvg2-bin`,
/// `brew install librsvg`) found on PATH, and its start-up (~20 ms) is nothing next to a network
/// request. The choice lives in this one file (docs/charts.md).
///
/// The child is bounded: a time limit (killed when it passes), a cap on the bytes it may print,
/// an environment without metrika's secrets, and its answer must be a PNG.
package struct RSVGConvertRasterizer: ChartRasterizer {
    /// The program searched for on PATH.
    package static let programName = "rsvg-convert"
    /// Names the program explicitly (a path), instead of searching PATH.
    package static let overrideVariable = "METRIKA_RSVG_CONVERT"
    /// What to run to get the program.
    package static let installHint =
        "install librsvg's rsvg-convert (Debian/Ubuntu: apt-get install librsvg2-bin; macOS: brew install librsvg)"

    /// The environment metrika runs in: PATH and the override are read from it, and the child gets
    /// it without any METRIKA_ variable (tokens, client secrets, passwords never reach it).
    package let environment: [String: String]
    /// Seconds the child may take before it is killed: generous, because a loaded 2-core machine
    /// running the whole test suite was measured taking 22 s for one chart (0.35 s when idle).
    package var timeout: Double
    /// The most PNG bytes accepted; a child printing more is stopped.
    package var maximumOutput: Int

    /// Creates the rasterizer for a process environment.
    package init(environment: [String: String], timeout: Double = 60, maximumOutput: Int = 64 << 20) {
        self.environment = environment
        self.timeout = timeout
        self.maximumOutput = maximumOutput
    }

    /// This rasterizer (its bounds) with its child run in `environment`.
    package func forChildren(in environment: [String: String]) -> any ChartRasterizer {
        RSVGConvertRasterizer(environment: environment, timeout: timeout, maximumOutput: maximumOutput)
    }

    /// The program to run: `METRIKA_RSVG_CONVERT` when set, else the first `rsvg-convert` on PATH.
    package func executable() -> String? {
        if let named = environment[Self.overrideVariable], !named.isEmpty {
            return FileManager.default.isExecutableFile(atPath: named) ? named : nil
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/" + Self.programName
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    package func png(fromSVG svg: Data, scale: Double) async throws -> Data {
        guard let program = executable() else {
            if let named = environment[Self.overrideVariable], !named.isEmpty {
                throw ChartRasterizerError(
                    "cannot draw PNG: \(Self.overrideVariable) names \(named), which is not an executable program; fix it, or unset it and \(Self.installHint)"
                )
            }
            throw ChartRasterizerError(
                "cannot draw PNG: \(Self.programName) is not installed (not on PATH); \(Self.installHint)",
                svgWouldDo: true)
        }
        let child = ChildProcess(
            program: program,
            arguments: ["--format", "png", "--zoom", DecimalText.trimmed(scale, maxFractionDigits: 3)],
            environment: environment, timeout: timeout, maximumOutput: maximumOutput, stopsOnOutputOverflow: true)
        let result: ChildProcess.Result
        do {
            result = try await child.run(input: svg)
        } catch {
            throw ChartRasterizerError("cannot start \(program): \(error.reason); \(Self.installHint)")
        }
        if result.timedOut {
            throw ChartRasterizerError(
                "\(program) took longer than \(DecimalText.trimmed(timeout, maxFractionDigits: 1)) s and was stopped; no PNG was written"
            )
        }
        if result.outputOverflowed {
            throw ChartRasterizerError(
                "\(program) printed more than \(maximumOutput) bytes and was stopped; no PNG was written")
        }
        guard result.succeeded else {
            let said = ChildProcess.summary(of: result.errors)
            throw ChartRasterizerError(
                "\(program) failed (\(result.ending))\(said.isEmpty ? "" : ": " + said); no PNG was written")
        }
        let png = result.output
        guard PNGImage.isPNG(png) else {
            throw ChartRasterizerError(
                "\(program) did not answer with a PNG image (\(png.count) bytes without the PNG signature); no PNG was written"
            )
        }
        return png
    }
}
