import Foundation
import MetrikaCLI
import MetrikaTestSupport
import Testing

/// docs/man/metrika.1 is generated from the command tables: it must be what `ManPage.render()` makes
/// today (re-record with METRIKA_RECORD_GOLDEN=1), and man/groff must read it without a warning.
@Suite("Man page", .blockingLanes)
struct ManPageTests {
    static let committed = Binaries.repositoryRoot.appendingPathComponent("docs/man/metrika.1")

    @Test func committedPageIsUpToDate() throws {
        try Golden.expect(
            ManPage.render(), matches: Self.committed,
            describe:
                "docs/man/metrika.1 is out of date: re-record with METRIKA_RECORD_GOLDEN=1 swift test --filter ManPage")
    }

    /// Every command and every option of it is on the page.
    @Test func everyCommandAndOptionIsDocumented() throws {
        let page = try String(contentsOf: Self.committed, encoding: .utf8)
        for name in [
            "counters", "report", "chart", "mail", "alert", "sync", "cache info", "cache prune", "login", "logout",
            "auth status", "completions"
        ] {
            #expect(page.contains(".SS \"\(name)\""), "\(name)")
        }
        for option in [
            "\\-\\-group", "\\-\\-counter", "\\-\\-before", "\\-\\-token\\-stdin", "\\-\\-dry\\-run", "\\-\\-webhook",
            "\\-\\-verbose"
        ] {
            #expect(page.contains(option), "\(option)")
        }
    }

    @Test func groffReadsItWithoutWarnings() throws {
        try ToolCheck.require("groff", package: "groff-base", searchPath: "/usr/bin:/bin")
        let result = try runProcess(
            "/usr/bin/groff", ["-man", "-Tutf8", "-K", "utf8", "-ww", "-z", Self.committed.path],
            environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"])
        #expect(result.status == 0 && result.stderr.isEmpty, "groff: \(result.stderr)")
    }

    /// Issue 40 item 13: the page is ASCII (troff escapes for —, …, Cyrillic), so `LC_ALL=C man` reads
    /// it without a warning and shows no mojibake; on a UTF-8 device the characters are all there.
    @Test func theCLocaleReadsItWithoutWarnings() throws {
        try ToolCheck.require("groff", package: "groff-base", searchPath: "/usr/bin:/bin")
        let data = try Data(contentsOf: Self.committed)
        #expect(data.allSatisfy { $0 < 0x80 }, "raw UTF-8 in docs/man/metrika.1")
        let ascii = try runProcess(
            "/usr/bin/groff", ["-man", "-Tascii", "-ww", Self.committed.path],
            environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
        #expect(ascii.status == 0 && ascii.stderr.isEmpty, "groff -Tascii: \(ascii.stderr)")
        #expect(ascii.stdout.contains("URL[,URL...]"), "the ellipsis as three dots")
        #expect(ascii.stdout.contains("Zakaz"), "Cyrillic transliterated on an ASCII device")
        let utf8 = try runProcess(
            "/usr/bin/groff", ["-man", "-Tutf8", "-ww", Self.committed.path],
            environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
        #expect(utf8.status == 0 && utf8.stderr.isEmpty, "groff -Tutf8: \(utf8.stderr)")
        #expect(utf8.stdout.contains("Заказ оформлен"), "the Cyrillic itself on a UTF-8 device")
        #expect(utf8.stdout.contains("URL[,URL...]") && utf8.stdout.contains("—"))
        if let man = ToolCheck.locate("man", searchPath: "/usr/bin:/bin") {
            let page = try runProcess(
                man, ["-l", Self.committed.path],
                environment: [
                    "PATH": "/usr/bin:/bin", "LC_ALL": "C", "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"
                ])
            #expect(page.status == 0 && !page.stderr.contains("warning"), "man: \(page.stderr)")
            #expect(
                page.stdout.contains("Zakaz") && page.stdout.unicodeScalars.allSatisfy(\.isASCII),
                "man -l under LC_ALL=C")
        }
    }
}
