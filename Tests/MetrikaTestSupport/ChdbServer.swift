// Test builds only: a plain `swift build` (release included) builds every target but has no Testing.
#if canImport(Testing)
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Today's ClickHouse engine for the warehouse tests: `scripts/chdb-http` (chdb, ClickHouse 26.x in
    /// Python, behind the part of ClickHouse's HTTP interface metrika uses) on a free loopback port, with
    /// its databases in a temporary directory and a user `metrika` whose password tests pass through the
    /// environment. A suite starts one and keeps it (`reset()` between tests); it stops when released,
    /// and by itself when the test process is gone (`--parent-pid`), so a killed run leaves nothing.
    public final class ChdbServer: @unchecked Sendable {
        public static let user = "metrika"
        public static let password = "chdb-s3cret"
        /// What a test says when chdb cannot run here.
        public static let missing = "chdb-core is missing (python3 -m pip install chdb-core, or run scripts/setup)"

        public let directory: String
        public let httpPort: Int
        public private(set) var pid: Int32 = 0
        public var url: String { "http://127.0.0.1:\(httpPort)" }

        /// The repository's `scripts/chdb-http`.
        public static var script: String {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("scripts/chdb-http").path
        }

        /// Starts it and waits (at most 60 s) for its port; throws a message saying why it could not
        /// (`missing` when the Python package is not installed).
        public init() throws {
            guard ToolCheck.locate("python3") != nil else { throw ChdbUnavailable(reason: Self.missing) }
            directory = NSTemporaryDirectory() + "metrika-chdb-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Started through sh as a grandchild, as ClickHouseServer does: a long-lived direct child
            // once kept Foundation's Process from reaping later children. bash closes the descriptors the
            // server would inherit (one of them tells Process that the launcher exited) before python3
            // starts. The port is announced in a file.
            let launcher = Process()
            launcher.executableURL = URL(fileURLWithPath: "/bin/sh")
            launcher.arguments = [
                "-c",
                "cd \"$1\" && exec </dev/null; /bin/bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done; "
                    + "exec python3 \"$@\"' chdb-http \"$2\" --path \"$1/data\" --port 0 --parent-pid \"$3\" --remove-on-exit \"$1\" >\"$1/out\" 2>\"$1/err\" & echo $! > \"$1/pid\"",
                "sh", directory, Self.script, String(getpid())
            ]
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("METRIKA_") }
            environment["CHDB_HTTP_USER"] = Self.user
            environment["CHDB_HTTP_PASSWORD"] = Self.password
            launcher.environment = environment
            launcher.standardOutput = FileHandle.nullDevice
            launcher.standardError = FileHandle.nullDevice
            try launcher.run()
            launcher.waitUntilExit()
            guard let pidText = try? String(contentsOfFile: directory + "/pid", encoding: .utf8),
                let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines))
            else {
                throw ChdbUnavailable(reason: "could not start scripts/chdb-http through /bin/sh")
            }
            self.pid = pid
            let deadline = Date().addingTimeInterval(60)
            var port: Int?
            while Date() < deadline {
                let out = (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? ""
                if let line = out.split(separator: "\n").first, line.hasPrefix("chdb-http listening on"),
                    let number = line.split(separator: ":").last.flatMap({ Int($0) })
                {
                    port = number
                    break
                }
                if kill(pid, 0) != 0 { break }
                usleep(100_000)
            }
            guard let port else {
                let error = (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? ""
                kill(pid, SIGKILL)
                try? FileManager.default.removeItem(atPath: directory)
                throw ChdbUnavailable(
                    reason: error.contains("chdb-core is missing") || error.contains("No module named")
                        ? Self.missing : "scripts/chdb-http did not start: \(error.suffix(300))")
            }
            httpPort = port
        }

        deinit {
            stop()
            try? FileManager.default.removeItem(atPath: directory)
        }

        public func stop() {
            guard pid > 0, kill(pid, 0) == 0 else { return }
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while kill(pid, 0) == 0 && Date() < deadline { usleep(50_000) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
            pid = 0
        }

        /// Runs a statement as the test user and returns the answer (TabSeparated), trailing newline
        /// removed; a refusal throws ClickHouse's error text.
        @discardableResult
        public func query(_ sql: String) throws -> String {
            var request = URLRequest(url: URL(string: url + "/")!, timeoutInterval: 60)
            request.httpMethod = "POST"
            request.httpBody = Data(sql.utf8)
            request.setValue(Self.user, forHTTPHeaderField: "X-ClickHouse-User")
            request.setValue(Self.password, forHTTPHeaderField: "X-ClickHouse-Key")
            let (status, body) = try Self.exchange(request)
            let text = String(decoding: body, as: UTF8.self)
            guard status == 200 else { throw ChdbUnavailable(reason: "HTTP \(status): \(text)") }
            return text.hasSuffix("\n") ? String(text.dropLast()) : text
        }

        /// Drops every database a test made, so the next test starts from an empty server.
        public func reset() throws {
            let databases = try query(
                "SELECT name FROM system.databases WHERE name NOT IN ('system', 'default', 'INFORMATION_SCHEMA', 'information_schema')"
            )
            for name in databases.split(separator: "\n") { try query("DROP DATABASE IF EXISTS `\(name)`") }
        }

        static func exchange(_ request: URLRequest) throws -> (Int, Data) {
            final class Box: @unchecked Sendable { var status = 0, data = Data(), error: (any Error)? }
            let box = Box()
            let semaphore = DispatchSemaphore(value: 0)
            URLSession.shared.dataTask(with: request) { data, response, error in
                box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
                box.data = data ?? Data()
                box.error = error
                semaphore.signal()
            }.resume()
            semaphore.wait()
            if let error = box.error { throw error }
            return (box.status, box.data)
        }

        /// The suite's shared server. When chdb (or python3) is not installed the test is skipped, naming
        /// the package; when it is installed but does not start, the error fails the test.
        public static func require(
            _ started: Result<ChdbServer, any Error>, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> ChdbServer {
            switch started {
            case .success(let server):
                try server.reset()
                return server
            case .failure(let error as ChdbUnavailable) where error.isMissing:
                try Test.cancel("skipped: \(error)", sourceLocation: sourceLocation)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Why chdb-http could not serve.
    public struct ChdbUnavailable: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
        /// Not installed here (a skip), as opposed to installed and failing (a failure).
        public var isMissing: Bool { reason == ChdbServer.missing }
    }
#endif
