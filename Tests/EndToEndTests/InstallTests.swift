import Foundation
import MetrikaTestSupport
import Testing
import MetrikaAPI
import MetrikaCLI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaSystem
import MetrikaWarehouse

/// `scripts/install PREFIX` puts the binary, the man page and the three completion scripts where
/// man, bash-completion, zsh's compinit and fish look — checked by asking each of them.
@Suite("scripts/install")
struct InstallTests {
    @Test func installsWhereEachToolLooks() throws {
        let home = try TemporaryDirectory()
        let prefix = home.path + "/prefix"
        let script = Binaries.repositoryRoot.appendingPathComponent("scripts/install").path
        let result = try runProcess("/bin/bash", [script, prefix], environment: ["PATH": "/usr/bin:/bin", "HOME": home.path, "METRIKA_BINARY": Binaries.metrika])
        try #require(result.status == 0, "scripts/install: \(result.stderr)")
        #expect(result.stdout.contains("installed metrika \(MetrikaVersion.current) into \(prefix)"))

        let installed = [
            "bin/metrika", "share/man/man1/metrika.1", "share/bash-completion/completions/metrika",
            "share/zsh/site-functions/_metrika", "share/fish/vendor_completions.d/metrika.fish",
        ]
        for path in installed { #expect(FileManager.default.fileExists(atPath: prefix + "/" + path), "\(path) missing") }
        let man = try String(contentsOfFile: prefix + "/share/man/man1/metrika.1", encoding: .utf8)
        #expect(man == (try String(contentsOf: Binaries.repositoryRoot.appendingPathComponent("docs/man/metrika.1"), encoding: .utf8)))
        for (shell, path) in [("bash", "share/bash-completion/completions/metrika"), ("zsh", "share/zsh/site-functions/_metrika"), ("fish", "share/fish/vendor_completions.d/metrika.fish")] {
            let expected = try metrika(["completions", shell], environment: ["PATH": "/usr/bin:/bin"]).stdout
            #expect(try String(contentsOfFile: prefix + "/" + path, encoding: .utf8) == expected, "\(shell)")
        }

        let environment = ["PATH": "\(prefix)/bin:/usr/bin:/bin", "HOME": home.path, "XDG_DATA_DIRS": "\(prefix)/share:/usr/share"]
        var asked: [String] = []
        if ToolCheck.locate("man", searchPath: "/usr/bin:/bin") != nil {
            let where_ = try runProcess("/usr/bin/man", ["-w", "metrika"], environment: environment)
            #expect(where_.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == prefix + "/share/man/man1/metrika.1", "man -w: \(where_.stdout) \(where_.stderr)")
            asked.append("man")
        }
        if FileManager.default.fileExists(atPath: "/usr/share/bash-completion/bash_completion") {
            let loaded = try runProcess("/bin/bash", ["--norc", "--noprofile", "-c", "source /usr/share/bash-completion/bash_completion; _completion_loader metrika; complete -p metrika"], environment: environment)
            #expect(loaded.stdout.contains("complete -F _metrika metrika"), "bash-completion: \(loaded.stdout) \(loaded.stderr)")
            asked.append("bash-completion")
        }
        if ToolCheck.locate("zsh", searchPath: "/usr/bin:/bin") != nil {
            let loaded = try runProcess("/usr/bin/zsh", ["-f", "-c", "fpath=(\(prefix)/share/zsh/site-functions $fpath); autoload -U compinit; compinit -u -D; print -r -- $_comps[metrika]"], environment: environment)
            #expect(loaded.stdout == "_metrika\n", "zsh: \(loaded.stdout) \(loaded.stderr)")
            asked.append("zsh")
        }
        if ToolCheck.locate("fish", searchPath: "/usr/bin:/bin") != nil {
            let offered = try runProcess("/usr/bin/fish", ["-c", "complete -C 'metrika rep'"], environment: environment)
            #expect(offered.stdout.hasPrefix("report\t"), "fish: \(offered.stdout) \(offered.stderr)")
            asked.append("fish")
        }
        if asked.count < 4 {
            try Test.cancel("skipped in part: only \(asked) were there to ask (apt-get install man-db bash-completion zsh fish, or run scripts/setup)")
        }
    }
}
