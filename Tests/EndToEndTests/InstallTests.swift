import Foundation
import MetrikaMCP
import MetrikaModel
import MetrikaTestSupport
import Testing

/// `scripts/install PREFIX` puts the binary, the man page and the three completion scripts where
/// man, bash-completion, zsh's compinit and fish look — checked by asking each of them.
@Suite("scripts/install", .blockingLanes)
struct InstallTests {
    @Test func installsWhereEachToolLooks() throws {
        let home = try TemporaryDirectory()
        let prefix = home.path + "/prefix"
        let script = Binaries.repositoryRoot.appendingPathComponent("scripts/install").path
        let result = try runProcess(
            "/bin/bash", [script, prefix],
            environment: ["PATH": "/usr/bin:/bin", "HOME": home.path, "METRIKA_BINARY": Binaries.metrika])
        try #require(result.status == 0, "scripts/install: \(result.stderr)")
        #expect(result.stdout.contains("installed metrika \(MetrikaVersion.current) into \(prefix)"))

        let installed = [
            "bin/metrika", "share/man/man1/metrika.1", "share/bash-completion/completions/metrika",
            "share/zsh/site-functions/_metrika", "share/fish/vendor_completions.d/metrika.fish"
        ]
        for path in installed {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + path), "\(path) missing")
        }
        let man = try String(contentsOfFile: prefix + "/share/man/man1/metrika.1", encoding: .utf8)
        #expect(
            man
                == (try String(
                    contentsOf: Binaries.repositoryRoot.appendingPathComponent("docs/man/metrika.1"), encoding: .utf8)))
        for (shell, path) in [
            ("bash", "share/bash-completion/completions/metrika"), ("zsh", "share/zsh/site-functions/_metrika"),
            ("fish", "share/fish/vendor_completions.d/metrika.fish")
        ] {
            let expected = try metrika(["completions", shell], environment: ["PATH": "/usr/bin:/bin"]).stdout
            #expect(try String(contentsOfFile: prefix + "/" + path, encoding: .utf8) == expected, "\(shell)")
        }

        let environment = [
            "PATH": "\(prefix)/bin:/usr/bin:/bin", "HOME": home.path, "XDG_DATA_DIRS": "\(prefix)/share:/usr/share"
        ]
        var asked: [String] = []
        if ToolCheck.locate("man", searchPath: "/usr/bin:/bin") != nil {
            let where_ = try runProcess("/usr/bin/man", ["-w", "metrika"], environment: environment)
            #expect(
                where_.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == prefix + "/share/man/man1/metrika.1",
                "man -w: \(where_.stdout) \(where_.stderr)")
            asked.append("man")
        }
        if FileManager.default.fileExists(atPath: "/usr/share/bash-completion/bash_completion") {
            let loaded = try runProcess(
                "/bin/bash",
                [
                    "--norc", "--noprofile", "-c",
                    "source /usr/share/bash-completion/bash_completion; _completion_loader metrika; complete -p metrika"
                ], environment: environment)
            #expect(
                loaded.stdout.contains("complete -F _metrika metrika"),
                "bash-completion: \(loaded.stdout) \(loaded.stderr)")
            asked.append("bash-completion")
        }
        if ToolCheck.locate("zsh", searchPath: "/usr/bin:/bin") != nil {
            let loaded = try runProcess(
                "/usr/bin/zsh",
                [
                    "-f", "-c",
                    "fpath=(\(prefix)/share/zsh/site-functions $fpath); autoload -U compinit; compinit -u -D; print -r -- $_comps[metrika]"
                ], environment: environment)
            #expect(loaded.stdout == "_metrika\n", "zsh: \(loaded.stdout) \(loaded.stderr)")
            asked.append("zsh")
        }
        if ToolCheck.locate("fish", searchPath: "/usr/bin:/bin") != nil {
            let offered = try runProcess("/usr/bin/fish", ["-c", "complete -C 'metrika rep'"], environment: environment)
            #expect(offered.stdout.hasPrefix("report\t"), "fish: \(offered.stdout) \(offered.stderr)")
            asked.append("fish")
        }
        if asked.count < 4 {
            try Test.cancel(
                "skipped in part: only \(asked) were there to ask (apt-get install man-db bash-completion zsh fish, or run scripts/setup)"
            )
        }
    }
}

/// `scripts/install --mcpb FILE`: the Claude Desktop extension bundle — a zip whose manifest lists
/// exactly the server's tools and runs the bundled binary as `metrika mcp` with the token setting.
@Suite("scripts/install --mcpb", .blockingLanes)
struct MCPBundleTests {
    @Test func theBundleListsExactlyTheServersToolsAndRunsTheBundledBinary() throws {
        guard let python = ToolCheck.locate("python3", searchPath: "/usr/bin:/bin:/usr/local/bin") else {
            try Test.cancel("skipped: python3 is not installed (apt-get install python3, or run scripts/setup)")
        }
        let home = try TemporaryDirectory()
        let bundle = home.path + "/metrika.mcpb"
        let script = Binaries.repositoryRoot.appendingPathComponent("scripts/install").path
        let path = (python as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        let built = try runProcess(
            "/bin/bash", [script, "--mcpb", bundle],
            environment: ["PATH": path, "HOME": home.path, "METRIKA_BINARY": Binaries.metrika])
        try #require(built.status == 0, "scripts/install --mcpb: \(built.stderr)")
        #expect(built.stdout.contains("built \(bundle) (metrika \(MetrikaVersion.current))"), "\(built.stdout)")

        // Read back by Python's own zip reader: the members, the binary's mode, the manifest.
        let reader = """
            import json, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            m = json.loads(z.read("manifest.json"))
            print(json.dumps({"names": sorted(z.namelist()), "mode": z.getinfo("server/metrika").external_attr >> 16,
                              "size": z.getinfo("server/metrika").file_size, "manifest": m}))
            """
        let read = try runProcess(python, ["-c", reader, bundle], environment: ["PATH": path])
        try #require(read.status == 0, "\(read.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any])
        #expect(object["names"] as? [String] == ["manifest.json", "server/metrika"])
        #expect((object["mode"] as? Int).map { $0 & 0o777 } == 0o755)
        let size = try FileManager.default.attributesOfItem(atPath: Binaries.metrika)[.size] as? Int
        #expect(object["size"] as? Int == size)
        let manifest = try #require(object["manifest"] as? [String: Any])
        #expect(manifest["manifest_version"] as? String == "0.3")
        #expect(manifest["name"] as? String == "metrika")
        #expect(manifest["version"] as? String == MetrikaVersion.current)
        let tools = (manifest["tools"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(tools == MetrikaToolCatalogue.specs.map(\.name))
        let server = try #require(manifest["server"] as? [String: Any])
        #expect(server["type"] as? String == "binary")
        #expect(server["entry_point"] as? String == "server/metrika")
        let config = try #require(server["mcp_config"] as? [String: Any])
        #expect(config["command"] as? String == "${__dirname}/server/metrika")
        #expect(config["args"] as? [String] == ["mcp"])
        #expect(config["env"] as? [String: String] == ["METRIKA_TOKEN": "${user_config.metrika_token}"])
        let token = try #require((manifest["user_config"] as? [String: Any])?["metrika_token"] as? [String: Any])
        #expect(token["sensitive"] as? Bool == true)
        #expect(token["type"] as? String == "string")
    }
}

/// `scripts/prerequisites` (run by `scripts/demo`, the README's first command): on a machine with only
/// Swift it installs pkg-config and the SQLite, libcurl and libmicrohttpd headers, or says the one command to run.
/// Stand-ins on an otherwise empty PATH play pkg-config, apt-get, id and sudo.
@Suite("scripts/prerequisites", .blockingLanes)
struct PrerequisitesTests {
    static let packages = "pkg-config libsqlite3-dev libcurl4-openssl-dev libmicrohttpd-dev"

    /// A bin directory of stand-ins. pkg-config succeeds once apt-get has "installed" (a marker file).
    final class World: @unchecked Sendable {
        let directory: TemporaryDirectory
        var bin: String { directory.path + "/bin" }
        var log: String { directory.path + "/apt.log" }
        init(uid: Int, apt: Bool = true, sudo: String? = nil, installed: Bool = false) throws {
            directory = try TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            let marker = directory.path + "/installed"
            if installed { _ = FileManager.default.createFile(atPath: marker, contents: Data()) }
            try tool("pkg-config", "[ -e '\(marker)' ]")
            try tool("id", "echo \(uid)")
            if apt {
                try tool("apt-get", "echo \"apt-get $*\" >> '\(log)'; case \"$*\" in *install*) : > '\(marker)';; esac")
            }
            if let sudo { try tool("sudo", sudo) }
        }
        /// Through `ExecutableFile` ("Text file busy" otherwise, when another test forks meanwhile).
        func tool(_ name: String, _ body: String) throws {
            let path = bin + "/" + name
            try ExecutableFile.write("#!/bin/sh\n\(body)\n", to: path)
        }
        func run() throws -> ProcessResult {
            let script = Binaries.repositoryRoot.appendingPathComponent("scripts/prerequisites").path
            return try runProcess("/bin/bash", [script], environment: ["PATH": bin], stdin: "")
        }
        var aptCalls: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
    }

    @Test func alreadyThereIsSilent() throws {
        let world = try World(uid: 1000, installed: true)
        let result = try world.run()
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(world.aptCalls.isEmpty)
    }

    @Test func rootInstallsWithAptGet() throws {
        let world = try World(uid: 0)
        let result = try world.run()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("installing \(Self.packages) (apt-get)"), "\(result.stderr)")
        #expect(world.aptCalls.contains("apt-get update"))
        #expect(
            world.aptCalls.contains("apt-get install -y -qq --no-install-recommends \(Self.packages)"),
            "\(world.aptCalls)")
    }

    @Test func aPasswordLessSudoInstalls() throws {
        let world = try World(uid: 1000, sudo: #"[ "$1" = "-n" ] && exit 0; "$@""#)
        let result = try world.run()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            world.aptCalls.contains("apt-get install -y -qq --no-install-recommends \(Self.packages)"),
            "\(world.aptCalls)")
    }

    /// Nothing can be installed without asking: the one command to run, exit 69, nothing attempted.
    @Test(arguments: [
        (nil as String?, "as root run: apt-get install \(packages)"),
        (#"[ "$1" = "-n" ] && exit 1; "$@""#, "run: sudo apt-get install \(packages)")
    ])
    func withoutRightsItSaysWhatToRun(sudo: String?, says: String) throws {
        let world = try World(uid: 1000, sudo: sudo)
        let result = try world.run()
        #expect(result.status == 69)
        #expect(result.stderr.contains(says) && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(world.aptCalls.isEmpty)
    }

    @Test func withoutAptGetItNamesThePackages() throws {
        let world = try World(uid: 0, apt: false)
        let result = try world.run()
        #expect(result.status == 69)
        #expect(
            result.stderr.contains(
                "apt-get install \(Self.packages) (Debian/Ubuntu), brew install pkg-config sqlite curl libmicrohttpd (macOS)"
            ),
            "\(result.stderr)")
    }
}
