import Foundation
import Testing
import MetrikaRender

/// The mail's HTML part as a recipient sees it: the message `metrika mail` writes is unpacked like a
/// mail reader does (HTML + its cid: images) and rendered by a real browser, headless Chromium.
/// The images must have loaded (naturalWidth > 0, at the 2× size, shown no wider than the window)
/// and the screenshot must show the chart's lines, not a blank page.
@Suite(.serialized) struct MailBrowserEndToEndTests {
    static let scripts = Binaries.repositoryRoot.appendingPathComponent("Tests/MetrikaRenderTests/scripts")
    static let toolEnvironment = ProcessInfo.processInfo.environment
    static let chromiumCandidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]

    static var chromium: String? { chromiumCandidates.first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// Chromium installed and able to start headless here (no sandbox: CI runs as root in a container).
    static let chromiumRuns: Bool = {
        guard let chromium, let profile = try? TemporaryDirectory() else { return false }
        let result = try? runProcess(chromium, baseArguments(profile: profile.path) + ["--dump-dom", "about:blank"],
                                     environment: browserEnvironment(home: profile.path), timeout: 90)
        return result?.status == 0 && result?.stdout.contains("<body>") == true
    }()

    static func baseArguments(profile: String) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile + "/profile",
         "--allow-file-access-from-files", "--hide-scrollbars", "--force-device-scale-factor=1"]
    }

    static func browserEnvironment(home: String) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": home, "LC_ALL": "C.UTF-8"]
    }

    struct Page: Decodable {
        struct Image: Decodable { let cid: String; let type: String; let file: String }
        let mail: String
        let probe: String
        let images: [Image]
    }

    struct Probe: Decodable {
        let src: String
        let complete: Bool
        let naturalWidth: Int
        let naturalHeight: Int
        let shownWidth: Double
    }

    struct Stats: Decodable {
        let width: Int
        let height: Int
        let paintedShare: Double
        let near: [String: Int]
    }

    @Test(.enabled(if: chromiumRuns, "needs Chromium that starts headless (Debian: apt-get install chromium); .ci/run installs it"))
    func theHTMLPartShowsItsPNGChartsInARealBrowser() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let message = home.path + "/report.eml"
        let mailed = try metrika(["mail", "--counter", "1001,1002", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--output", message],
                                 environment: metrikaEnvironment(api: api, home: home.path))
        #expect(mailed.status == 0, "\(mailed.stderr)")
        #expect(!mailed.stderr.contains("Warning:"), "PNG expected: \(mailed.stderr)")

        let unpacked = try runProcess("/usr/bin/env", ["python3", Self.scripts.appendingPathComponent("mail_browser_page.py").path, message, home.path],
                                      environment: Self.toolEnvironment)
        try #require(unpacked.status == 0, "mail_browser_page.py: \(unpacked.stderr)")
        let page = try JSONDecoder().decode(Page.self, from: Data(unpacked.stdout.utf8))
        #expect(page.images.map(\.type) == ["image/png", "image/png"])

        // 1. Every image loaded: the DOM after the load event, as recorded by the probe script.
        let chromium = try #require(Self.chromium)
        let dumped = try runProcess(chromium, Self.baseArguments(profile: home.path) + ["--window-size=700,2000", "--virtual-time-budget=5000", "--dump-dom", "file://" + page.probe],
                                    environment: Self.browserEnvironment(home: home.path), timeout: 120)
        #expect(dumped.status == 0, "\(dumped.stderr.suffix(500))")
        let recorded = dumped.stdout.components(separatedBy: "PROBE")
        try #require(recorded.count >= 3, "the probe did not run: \(dumped.stdout.prefix(300))")
        let probes = try JSONDecoder().decode([Probe].self, from: Data(recorded[1].utf8))
        #expect(probes.count == 2)
        for probe in probes {
            #expect(probe.complete && probe.naturalWidth == 1600 && probe.naturalHeight == 800, "\(probe)")
            // A 700 px window: max-width:100% shrinks the 800 px image to fit, as on a phone.
            #expect(probe.shownWidth > 300 && probe.shownWidth < 700, "\(probe)")
        }

        // 2. The screenshot shows the charts: many painted pixels, and the charts' blue and vermillion lines.
        let shot = home.path + "/screenshot.png"
        let captured = try runProcess(chromium, Self.baseArguments(profile: home.path) + ["--window-size=900,1100", "--screenshot=" + shot, "file://" + page.mail],
                                      environment: Self.browserEnvironment(home: home.path), timeout: 120)
        #expect(captured.status == 0, "\(captured.stderr.suffix(500))")
        if let keep = ProcessInfo.processInfo.environment["METRIKA_KEEP_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
        let measured = try runProcess("/usr/bin/env", ["python3", Self.scripts.appendingPathComponent("png_stats.py").path, shot, "0072B2"],
                                      environment: Self.toolEnvironment, timeout: 120)
        try #require(measured.status == 0, "png_stats.py: \(measured.stderr)")
        let stats = try JSONDecoder().decode(Stats.self, from: Data(measured.stdout.utf8))
        #expect(stats.width == 900 && stats.height == 1100)
        #expect(stats.paintedShare > 0.02, "the page looks blank: \(stats)")
        #expect((stats.near["0072B2"] ?? 0) > 500, "no chart line (Okabe–Ito blue) on screen: \(stats)")
    }
}
