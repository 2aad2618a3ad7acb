import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A throwaway ClickHouse server for the `metrika logs --clickhouse` tests: Debian's
/// `clickhouse-server` started as the current user from a config written into a temporary directory,
/// on free loopback ports, with a user `metrika` whose password tests pass through the environment.
/// Stopped (and its directory removed) when the object goes away; a watchdog stops it when the test
/// process is gone (a suite keeps one for all its tests, in a static that is never released).
final class ClickHouseServer: @unchecked Sendable {
    static let binary = ["/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static var installed: Bool { binary != nil }
    static let user = "metrika"
    static let password = "ch-s3cret"

    private(set) var pid: Int32 = 0
    let directory: String
    let httpPort: Int
    var url: String { "http://127.0.0.1:\(httpPort)" }

    let tcpPort: Int

    /// Starts it and waits (at most 30 s) for `/ping`; throws a message saying why it could not.
    /// `cluster` names the native ports of the shards of a cluster `NAME` in `remote_servers` (one
    /// replica each, as the test user); without it the server knows one cluster `solo` of itself.
    /// `dataPath`: where the server keeps its tables, when they must outlive it (a test that kills
    /// the server and starts another on the same data and ports); by default inside its directory.
    init(
        httpPort: Int? = nil, tcpPort: Int? = nil, cluster: (name: String, tcpPorts: [Int])? = nil,
        dataPath: String? = nil
    ) throws {
        guard let binary = Self.binary else {
            throw SimpleError("clickhouse-server is not installed (apt-get install clickhouse-server)")
        }
        directory = NSTemporaryDirectory() + "metrika-clickhouse-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        self.httpPort = try httpPort ?? Self.freePort()
        let tcpPort = try tcpPort ?? Self.freePort()
        self.tcpPort = tcpPort
        let shards = (cluster?.tcpPorts ?? [tcpPort]).map {
            "<shard><replica><host>127.0.0.1</host><port>\($0)</port><user>\(Self.user)</user><password>\(Self.password)</password></replica></shard>"
        }.joined()
        let clusterName = cluster?.name ?? "solo"
        let config = """
            <?xml version="1.0"?>
            <yandex>
              <logger><level>warning</level><log>\(directory)/server.log</log><errorlog>\(directory)/error.log</errorlog><console>0</console></logger>
              <http_port>\(self.httpPort)</http_port>
              <tcp_port>\(tcpPort)</tcp_port>
              <listen_host>127.0.0.1</listen_host>
              <path>\(dataPath ?? directory + "/data")/</path>
              <tmp_path>\(directory)/tmp/</tmp_path>
              <users_config>\(directory)/users.xml</users_config>
              <default_profile>default</default_profile>
              <default_database>default</default_database>
              <mark_cache_size>67108864</mark_cache_size>
              <remote_servers><\(clusterName)>\(shards)</\(clusterName)></remote_servers>
            </yandex>
            """
        let users = """
            <?xml version="1.0"?>
            <yandex>
              <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
              <users>
                <\(Self.user)><password>\(Self.password)</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></\(Self.user)>
              </users>
              <quotas><default></default></quotas>
            </yandex>
            """
        try config.write(toFile: directory + "/config.xml", atomically: true, encoding: .utf8)
        try users.write(toFile: directory + "/users.xml", atomically: true, encoding: .utf8)
        // Started through sh as a grandchild, not a child of the test process: Foundation's Process
        // stopped noticing the exit of later children (every `metrika` run hung as a zombie) while
        // clickhouse-server was a direct child. The shell writes its pid; `stop` signals that pid.
        let launcher = Process()
        launcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        launcher.arguments = [
            "-c",
            "cd \"$1\" && exec </dev/null >/dev/null 2>&1; \"$2\" --config-file=\"$1/config.xml\" & server=$!; echo $server > \"$1/pid\"; "
                // The watchdog first closes every descriptor it inherited: one of them is how
                // Foundation's Process learns that the launcher exited (and bash, unlike dash, can
                // close descriptors above 9).
                + "/bin/bash -c 'for f in /proc/$$/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done; "
                + "while kill -0 \"$1\" 2>/dev/null && kill -0 \"$2\" 2>/dev/null; do sleep 1; done; kill \"$2\" 2>/dev/null; sleep 5; "
                + "kill -0 \"$2\" 2>/dev/null && kill -9 \"$2\"; rm -rf \"$3\"' watchdog \"$3\" $server \"$1\" &",
            "sh", directory, binary, String(getpid())
        ]
        launcher.standardOutput = FileHandle.nullDevice
        launcher.standardError = FileHandle.nullDevice
        try launcher.run()
        launcher.waitUntilExit()
        guard let pidText = try? String(contentsOfFile: directory + "/pid", encoding: .utf8),
            let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw SimpleError("could not start clickhouse-server through /bin/sh")
        }
        self.pid = pid
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let answer = try? get("/ping"), answer.hasPrefix("Ok") { return }
            if !isRunning { break }
            usleep(200_000)
        }
        stop()
        let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
        throw SimpleError("clickhouse-server did not start within 30 s: \(log.suffix(300))")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var isRunning: Bool { pid > 0 && kill(pid, 0) == 0 }

    /// SIGTERM, then SIGKILL after 5 s: 18.16 can wait a long time for idle keep-alive clients.
    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while isRunning && Date() < deadline { usleep(50_000) }
        if isRunning { kill(pid, SIGKILL) }
        pid = 0
    }

    private func get(_ path: String) throws -> String {
        let request = URLRequest(url: URL(string: url + path)!, timeoutInterval: 2)
        return String(decoding: try blockingRequest(request), as: UTF8.self)
    }

    /// Runs a query as the test user and returns the answer (TabSeparated), trailing newline removed.
    func query(_ sql: String) throws -> String {
        var request = URLRequest(url: URL(string: url + "/")!, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.httpBody = Data(sql.utf8)
        request.setValue(Self.user, forHTTPHeaderField: "X-ClickHouse-User")
        request.setValue(Self.password, forHTTPHeaderField: "X-ClickHouse-Key")
        let text = String(decoding: try blockingRequest(request), as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Drops every database a test made, so the next test starts from an empty server.
    func reset() throws {
        let databases = try query("SELECT name FROM system.databases WHERE name NOT IN ('system', 'default')")
        for name in databases.split(separator: "\n") { _ = try query("DROP DATABASE IF EXISTS `\(name)`") }
    }

    /// A port nothing listens on right now (bound to 0 and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else { throw SimpleError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
