import Foundation
import MetrikaTestSupport
import Testing
import MetrikaCLI

/// docs/man/metrika.1 is generated from the command tables: it must be what `ManPage.render()` makes
/// today (re-record with METRIKA_RECORD_GOLDEN=1), and man/groff must read it without a warning.
@Suite("Man page", .blockingLanes)
struct ManPageTests {
    static let committed = Binaries.repositoryRoot.appendingPathComponent("docs/man/metrika.1")

    @Test func committedPageIsUpToDate() throws {
        try Golden.expect(ManPage.render(), matches: Self.committed,
                          describe: "docs/man/metrika.1 is out of date: re-record with METRIKA_RECORD_GOLDEN=1 swift test --filter ManPage")
    }

    /// Every command and every option of it is on the page.
    @Test func everyCommandAndOptionIsDocumented() throws {
        let page = try String(contentsOf: Self.committed, encoding: .utf8)
        for name in ["counters", "report", "chart", "mail", "alert", "sync", "cache info", "cache prune", "login", "logout", "auth status", "completions"] {
            #expect(page.contains(".SS \"\(name)\""), "\(name)")
        }
        for option in ["\\-\\-group", "\\-\\-counter", "\\-\\-before", "\\-\\-token\\-stdin", "\\-\\-dry\\-run", "\\-\\-webhook", "\\-\\-verbose"] {
            #expect(page.contains(option), "\(option)")
        }
    }

    @Test func groffReadsItWithoutWarnings() throws {
        try ToolCheck.require("groff", package: "groff-base", searchPath: "/usr/bin:/bin")
        let result = try runProcess("/usr/bin/groff", ["-man", "-Tutf8", "-K", "utf8", "-ww", "-z", Self.committed.path], environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(result.status == 0 && result.stderr.isEmpty, "groff: \(result.stderr)")
    }
}
