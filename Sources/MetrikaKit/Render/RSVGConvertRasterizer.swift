import Foundation

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
public struct RSVGConvertRasterizer: ChartRasterizer {
    /// The program searched for on PATH.
    public static let programName = "rsvg-convert"
    /// Names the program explicitly (a path), instead of searching PATH.
    public static let overrideVariable = "METRIKA_RSVG_CONVERT"
    /// What to run to get the program.
    public static let installHint = "install librsvg's rsvg-convert (Debian/Ubuntu: apt-get install librsvg2-bin; macOS: brew install librsvg)"

    /// The environment metrika runs in: PATH and the override are read from it, and the child gets
    /// it without any METRIKA_ variable (tokens, client secrets, passwords never reach it).
    public let environment: [String: String]
    /// Seconds the child may take before it is killed: generous, because a loaded 2-core machine
    /// running the whole test suite was measured taking 22 s for one chart (0.35 s when idle).
    public var timeout: Double
    /// The most PNG bytes accepted; a child printing more is stopped.
    public var maximumOutput: Int

    /// Creates the rasterizer for a process environment.
    public init(environment: [String: String], timeout: Double = 60, maximumOutput: Int = 64 << 20) {
        self.environment = environment
        self.timeout = timeout
        self.maximumOutput = maximumOutput
    }

    /// The program to run: `METRIKA_RSVG_CONVERT` when set, else the first `rsvg-convert` on PATH.
    public func executable() -> String? {
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

    /// The child's environment: the parent's minus every `METRIKA_…` variable.
    public func childEnvironment() -> [String: String] {
        environment.filter { !$0.key.hasPrefix("METRIKA_") }
    }

    public func png(fromSVG svg: Data, scale: Double) throws -> Data {
        guard let program = executable() else {
            if let named = environment[Self.overrideVariable], !named.isEmpty {
                throw ChartRasterizerError("cannot draw PNG: \(Self.overrideVariable) names \(named), which is not an executable program; fix it, or unset it and \(Self.installHint)")
            }
            throw ChartRasterizerError("cannot draw PNG: \(Self.programName) is not installed (not on PATH); \(Self.installHint), or write SVG (--format svg)")
        }
        // SIGPIPE must not kill metrika when the child exits before reading all of its input.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["--format", "png", "--zoom", ChartNumber.trimmed(scale, maxDecimals: 3)]
        process.environment = childEnvironment()
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw ChartRasterizerError("cannot start \(program): \(error.localizedDescription); \(Self.installHint)")
        }
        let collected = BoundedCollector()
        let group = DispatchGroup()
        let limits = [maximumOutput, 4096]
        for (index, pipe) in [output, errors].enumerated() {
            let handle = pipe.fileHandleForReading
            let limit = limits[index]
            DispatchQueue.global().async(group: group) {
                while true {
                    let chunk = handle.readData(ofLength: 1 << 16)
                    if chunk.isEmpty { break }
                    // Too much PNG stops the child; too much talk on stderr is only cut (and still drained).
                    if !collected.append(index, chunk, limit: limit), index == 0 {
                        stop(process)
                        break
                    }
                }
            }
        }
        DispatchQueue.global().async(group: group) {
            try? input.fileHandleForWriting.write(contentsOf: svg)
            try? input.fileHandleForWriting.close()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        let timedOut = process.isRunning
        if timedOut { stop(process) }
        process.waitUntilExit()
        // A grandchild holding the pipes open must not hang metrika: wait for the readers a little only.
        _ = group.wait(timeout: .now() + 2)

        if timedOut {
            throw ChartRasterizerError("\(program) took longer than \(ChartNumber.trimmed(timeout, maxDecimals: 1)) s and was stopped; no PNG was written")
        }
        if collected.overflowed(0) {
            throw ChartRasterizerError("\(program) printed more than \(maximumOutput) bytes and was stopped; no PNG was written")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let said = String(String(decoding: collected.data(1), as: UTF8.self)
                .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                .joined(separator: " / ").unicodeScalars.filter { $0.properties.generalCategory != .control && $0.properties.generalCategory != .format }).prefix(300)
            let how = process.terminationReason == .exit ? "exit status \(process.terminationStatus)" : "signal \(process.terminationStatus)"
            throw ChartRasterizerError("\(program) failed (\(how))\(said.isEmpty ? "" : ": " + said); no PNG was written")
        }
        let png = collected.data(0)
        guard PNGImage.isPNG(png) else {
            throw ChartRasterizerError("\(program) did not answer with a PNG image (\(png.count) bytes without the PNG signature); no PNG was written")
        }
        return png
    }

    /// Kills the child and anything it started: Foundation gives the child its own process group, and
    /// a grandchild left alive would hold the pipes open (and Foundation waits for them to close).
    func stop(_ process: Process) {
        let pid = process.processIdentifier
        if getpgid(pid) == pid { kill(-pid, SIGKILL) } else { kill(pid, SIGKILL) }
    }

    /// Output of the child collected on other threads, each stream up to a limit.
    final class BoundedCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var streams: [Int: Data] = [:]
        private var overflow: Set<Int> = []

        /// Appends a chunk; false (and the stream marked) when it would pass `limit`.
        func append(_ index: Int, _ chunk: Data, limit: Int) -> Bool {
            lock.lock(); defer { lock.unlock() }
            let current = streams[index]?.count ?? 0
            guard current + chunk.count <= limit else {
                overflow.insert(index)
                streams[index, default: Data()].append(chunk.prefix(max(0, limit - current)))
                return false
            }
            streams[index, default: Data()].append(chunk)
            return true
        }

        func data(_ index: Int) -> Data { lock.lock(); defer { lock.unlock() }; return streams[index] ?? Data() }
        func overflowed(_ index: Int) -> Bool { lock.lock(); defer { lock.unlock() }; return overflow.contains(index) }
    }
}
