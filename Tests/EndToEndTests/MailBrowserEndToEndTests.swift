import Foundation
import MetrikaRender
import MetrikaTestSupport
import Testing

/// The mail's HTML part as a recipient sees it: the message `metrika mail` writes is unpacked like a
/// mail reader does (HTML + its cid: images) and rendered by a real browser, headless Chromium.
/// The images must have loaded (naturalWidth > 0, at the 2× size, shown no wider than the window)
/// and the screenshot must show the chart's lines, not a blank page.
@Suite(.serialized, .blockingLanes(first: true)) struct MailBrowserEndToEndTests {
    static let scripts = Binaries.repositoryRoot.appendingPathComponent("Tests/MetrikaRenderTests/scripts")
    static let toolEnvironment = ProcessInfo.processInfo.environment
    static let chromiumCandidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]

    static var chromium: String? { chromiumCandidates.first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// Chromium able to start headless here (no sandbox: CI runs as root in a container). A missing
    /// Chromium skips the browser tests; an installed one that does not start fails them.
    static let chromiumRuns: Bool = {
        guard let chromium, let profile = try? TemporaryDirectory() else { return false }
        let result = try? runProcess(
            chromium, baseArguments(profile: profile.path) + ["--dump-dom", "about:blank"],
            environment: browserEnvironment(home: profile.path), timeout: 90)
        return result?.status == 0 && result?.stdout.contains("<body>") == true
    }()

    static func baseArguments(profile: String) -> [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=" + profile + "/profile",
            "--allow-file-access-from-files", "--hide-scrollbars", "--force-device-scale-factor=1"
        ]
    }

    static func browserEnvironment(home: String) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": home, "LC_ALL": "C.UTF-8"]
    }

    struct Page: Decodable {
        struct Image: Decodable {
            let cid: String
            let type: String
            let file: String
        }
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

    @Test(.enabled(if: chromium != nil, "needs Chromium (Debian: apt-get install chromium); .ci/run installs it"))
    func theHTMLPartShowsItsPNGChartsInARealBrowser() throws {
        try #require(Self.chromiumRuns, "Chromium is installed but does not start headless here: a failure, not a skip")
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let message = home.path + "/report.eml"
        let mailed = try metrika(
            [
                "mail", "--counter", "1001,1002", "--to", "ivan@example.com", "--sender", "metrika@example.com",
                "--output", message
            ],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(mailed.status == 0, "\(mailed.stderr)")
        #expect(!mailed.stderr.contains("Warning:"), "PNG expected: \(mailed.stderr)")

        let unpacked = try runProcess(
            "/usr/bin/env",
            ["python3", Self.scripts.appendingPathComponent("mail_browser_page.py").path, message, home.path],
            environment: Self.toolEnvironment)
        try #require(unpacked.status == 0, "mail_browser_page.py: \(unpacked.stderr)")
        let page = try JSONDecoder().decode(Page.self, from: Data(unpacked.stdout.utf8))
        #expect(page.images.map(\.type) == ["image/png", "image/png"])

        // 1. Every image loaded: the DOM after the load event, as recorded by the probe script.
        let chromium = try #require(Self.chromium)
        let dumped = try runProcess(
            chromium,
            Self.baseArguments(profile: home.path) + [
                "--window-size=700,2000", "--virtual-time-budget=5000", "--dump-dom", "file://" + page.probe
            ],
            environment: Self.browserEnvironment(home: home.path), timeout: 120)
        #expect(dumped.status == 0, "\(dumped.stderr.suffix(500))")
        let recorded = dumped.stdout.components(separatedBy: "PROBE")
        try #require(recorded.count >= 3, "the probe did not run: \(dumped.stdout.prefix(300))")
        let probes = try JSONDecoder().decode([Probe].self, from: Data(recorded[1].utf8))
        #expect(probes.count == 2)
        for probe in probes {
            // The phone-width chart (360 × 190 px) drawn at 2×, shown at its own width.
            #expect(probe.complete && probe.naturalWidth == 720 && probe.naturalHeight == 380, "\(probe)")
            #expect(probe.shownWidth == 360, "\(probe)")
        }

        // 2. The screenshot shows the charts: many painted pixels, and the charts' blue and vermillion lines.
        let shot = home.path + "/screenshot.png"
        let captured = try runProcess(
            chromium,
            Self.baseArguments(profile: home.path) + [
                "--window-size=900,1100", "--screenshot=" + shot, "file://" + page.mail
            ],
            environment: Self.browserEnvironment(home: home.path), timeout: 120)
        #expect(captured.status == 0, "\(captured.stderr.suffix(500))")
        if let keep = ProcessInfo.processInfo.environment["METRIKA_KEEP_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: shot, toPath: keep)
        }
        let measured = try runProcess(
            "/usr/bin/env", ["python3", Self.scripts.appendingPathComponent("png_stats.py").path, shot, "0072B2"],
            environment: Self.toolEnvironment, timeout: 120)
        try #require(measured.status == 0, "png_stats.py: \(measured.stderr)")
        let stats = try JSONDecoder().decode(Stats.self, from: Data(measured.stdout.utf8))
        #expect(stats.width == 900 && stats.height == 1100)
        #expect(stats.paintedShare > 0.02, "the page looks blank: \(stats)")
        // The first counter's chart (a line ~300 px long, 2 px wide) is on screen; the second is below it.
        #expect((stats.near["0072B2"] ?? 0) > 250, "no chart line (Okabe–Ito blue) on screen: \(stats)")
    }

    // MARK: - Phone and desktop

    struct Layout: Decodable {
        struct Image: Decodable {
            let src: String?
            let alt: String?
            let complete: Bool
            let naturalWidth: Int
            let shownWidth: Double
            let shownTextSize: Double?
        }
        struct Figure: Decodable {
            let title: String?
            let desc: String?
            let shownWidth: Double
        }
        let name: String
        let width: Int
        let viewport: Int
        let scrollWidth: Int
        let scrollHeight: Int
        let brokenCells: [String]
        let brokenValues: [String]
        let checkedCells: Int
        let checkedValues: Int
        let brokenWords: [String]
        let checkedWords: Int
        let clippedTexts: [String]
        let labelsOnLines: [String]
        let checkedLabels: Int
        let images: [Image]
        let svgs: [Figure]
        let smallestChartText: Double?
        let chartTexts: Int
        let styleElements: Int
        let scripts: Int
    }

    struct Prepared: Decodable {
        let layout: String
        let shots: [String: String]
    }

    /// The mail (its cid: images resolved), a quarter's mail (tables by week), a thirty-counter mail
    /// (tables left out, summaries on one line: Gmail's byte budget), and two `report --format html` pages — a week by
    /// day with
    /// --compare, and a dimension report — laid out by Chromium in iframes 390 px (an iPhone), 360 px
    /// (a common Android width) and 1280 px wide, measured by a script in the page: nothing wider than the viewport, no
    /// number cell
    /// on two lines, no number or date broken anywhere, every image with alt text, every chart text
    /// at least 9 px as shown. One Chromium run measures all fifteen; two more take the screenshots.
    @Test(.enabled(if: chromium != nil, "needs Chromium (Debian: apt-get install chromium); .ci/run installs it"))
    func theMailAndTheReportPageReadOnAPhoneAndADesktop() throws {
        try #require(Self.chromiumRuns, "Chromium is installed but does not start headless here: a failure, not a skip")
        let now = "2026-11-25T09:00:00Z"
        let api = try FakeAPI(arguments: ["--now", now])
        let home = try TemporaryDirectory()
        // The rasterizer keeps each SVG it is given: the n-th inline PNG is drawn from the n-th SVG,
        // whose font sizes say how large the PNG's text is shown.
        let svgs = home.path + "/svgs"
        try FileManager.default.createDirectory(atPath: svgs, withIntermediateDirectories: true)
        let rsvg = try #require(
            ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        let wrapper = home.path + "/rsvg-keep"
        try ExecutableFile.write(
            "#!/bin/sh\nn=$(ls '\(svgs)' | wc -l)\nf='\(svgs)'/$(printf %04d \"$n\").svg\ncat > \"$f\"\nexec '\(rsvg)' \"$@\" < \"$f\"\n",
            to: wrapper)
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": now, "METRIKA_RSVG_CONVERT": wrapper])

        let mail = home.path + "/mail.eml"
        let mailed = try metrika(
            [
                "mail", "--counter", "1001,1002", "--to", "ivan@example.com", "--sender", "metrika@example.com",
                "--output", mail
            ],
            environment: environment)
        try #require(mailed.status == 0, "\(mailed.stderr)")
        // A quarter: tables by week. Thirty counters (the `many` fixtures): Gmail's byte budget leaves
        // their tables out (a line names the CSV attached instead) and shortens the last summaries to
        // one line. Mailed in the order the pages are listed below, so their SVGs line up.
        let quarter = home.path + "/quarter.eml"
        let quartered = try metrika(
            [
                "mail", "--counter", "1001,1002,1003", "--last", "90d", "--to", "ivan@example.com", "--sender",
                "metrika@example.com", "--output", quarter
            ],
            environment: environment)
        try #require(quartered.status == 0, "\(quartered.stderr)")
        let manyAPI = try FakeAPI(fixtures: "many", arguments: ["--now", now])
        let many = home.path + "/many.eml"
        let manyMailed = try metrika(
            [
                "mail", "--counter", (100_001...100_030).map(String.init).joined(separator: ","), "--last", "30d",
                "--to", "ivan@example.com",
                "--sender", "metrika@example.com", "--output", many
            ],
            environment: metrikaEnvironment(
                api: manyAPI, home: home.path,
                extra: ["METRIKA_NOW": now, "METRIKA_RSVG_CONVERT": wrapper, "METRIKA_DB": home.path + "/many.sqlite"]))
        try #require(manyMailed.status == 0, "\(manyMailed.stderr)")
        let scratch = try TemporaryDirectory()
        let (manyParsed, _) = try MailEndToEndTests.parse(many, scratch: scratch.path)
        let manyHTML = try #require(manyParsed.texts["text/html"])
        #expect(
            manyHTML.utf8.count < 100_000 && manyHTML.contains("left out so that Gmail does not clip")
                && manyHTML.contains("Visits <b>"),
            "the thirty-counter mail should show the budget's steps: \(manyHTML.utf8.count) bytes")
        let week = home.path + "/week.html"
        let reported = try metrika(
            ["report", "--counter", "1001", "--period", "lastWeek", "--compare", "--format", "html", "--output", week],
            environment: environment)
        try #require(reported.status == 0, "\(reported.stderr)")
        // A shop's money with --compare: money, its value before and the change were 418 px wide at 390.
        let shop = home.path + "/shop.html"
        let shopped = try metrika(
            [
                "report", "--counter", "1001", "--metrics", "purchases,revenue,revenuePerPurchase", "--period",
                "lastWeek", "--compare",
                "--format", "html", "--output", shop
            ], environment: environment)
        try #require(shopped.status == 0, "\(shopped.stderr)")
        let sources = try metrika(
            [
                "report", "--counter", "1001", "--dimensions", "trafficSource,searchEngine", "--from", "2026-11-16",
                "--to", "2026-11-22", "--format", "html"
            ],
            environment: environment)
        try #require(sources.status == 0, "\(sources.stderr)")
        let dimensions = home.path + "/sources.html"
        try sources.stdout.write(toFile: dimensions, atomically: true, encoding: .utf8)
        // An alert mail (issue 32, item 10): its lines with their dates, and its charts, drawn again
        // inline from the SVGs the rasterizer was given so that the browser can measure their texts.
        let alertAPI = try FakeAPI(fixtures: "alerts", arguments: ["--now", "2026-12-01T06:00:00Z"])
        let alertMail = home.path + "/alert.eml"
        let sendmail = home.path + "/fake-sendmail"
        try ExecutableFile.write("#!/bin/sh\ncat > '\(alertMail)'\n", to: sendmail)
        let drawnBefore = try FileManager.default.contentsOfDirectory(atPath: svgs).count
        let alerted = try metrika(
            ["alert", "--mail", "ops@example.com", "--sender", "metrika@example.com", "--sendmail", sendmail],
            environment: metrikaEnvironment(
                api: alertAPI, home: home.path,
                extra: [
                    "METRIKA_NOW": "2026-11-30T06:00:00Z", "METRIKA_RSVG_CONVERT": wrapper,
                    "METRIKA_DB": home.path + "/alerts.sqlite"
                ]))
        try #require(alerted.status == 0, "\(alerted.stderr)")
        let alertSVGs = try FileManager.default.contentsOfDirectory(atPath: svgs).sorted().dropFirst(drawnBefore)
        try #require(alertSVGs.count >= 2, "the alert mail should have charts")
        // Shown like the mail's `<img width="360" style="max-width:100%">`.
        var chartsPage = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">\n"
        for file in alertSVGs {
            chartsPage += try String(contentsOfFile: svgs + "/" + file, encoding: .utf8).replacingOccurrences(
                of: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", with: ""
            )
            .replacingOccurrences(of: "<svg ", with: "<svg style=\"display:block;max-width:100%;height:auto\" ")
        }
        let alertCharts = home.path + "/alertcharts.html"
        try (chartsPage + "</body></html>\n").write(toFile: alertCharts, atomically: true, encoding: .utf8)

        let prepared = try runProcess(
            "/usr/bin/env",
            [
                "python3", Self.scripts.appendingPathComponent("browser_layout.py").path, home.path, "--widths",
                "360,390,1280",
                "--svgs", svgs, "mail=" + mail, "quarter=" + quarter, "many=" + many, "week=" + week, "shop=" + shop,
                "sources=" + dimensions,
                "alert=" + alertMail, "alertcharts=" + alertCharts
            ], environment: Self.toolEnvironment)
        try #require(prepared.status == 0, "browser_layout.py: \(prepared.stderr)")
        let pages = try JSONDecoder().decode(Prepared.self, from: Data(prepared.stdout.utf8))

        let chromium = try #require(Self.chromium)
        let dumped = try runProcess(
            chromium,
            Self.baseArguments(profile: home.path) + [
                "--window-size=1400,1000", "--virtual-time-budget=10000", "--dump-dom", "file://" + pages.layout
            ],
            environment: Self.browserEnvironment(home: home.path), timeout: 120)
        #expect(dumped.status == 0, "\(dumped.stderr.suffix(500))")
        let recorded = dumped.stdout.components(separatedBy: "LAYOUT")
        try #require(recorded.count >= 3, "the measuring script did not run: \(dumped.stdout.prefix(300))")
        let layouts = try JSONDecoder().decode([Layout].self, from: Data(recorded[1].utf8))
        #expect(
            layouts.map { "\($0.name)-\($0.width)" } == [
                "mail-360", "mail-390", "mail-1280", "quarter-360", "quarter-390", "quarter-1280",
                "many-360", "many-390", "many-1280", "week-360", "week-390", "week-1280",
                "shop-360", "shop-390", "shop-1280", "sources-360", "sources-390", "sources-1280",
                "alert-360", "alert-390", "alert-1280", "alertcharts-360", "alertcharts-390", "alertcharts-1280"
            ])
        for page in layouts {
            let at = "\(page.name) at \(page.width) px"
            #expect(page.viewport == page.width, "\(at): the iframe is the viewport")
            #expect(page.scrollWidth <= page.width, "\(at): \(page.scrollWidth) px wide, cut off sideways")
            // The thirty-counter mail has no table left: its numbers are the summaries' (checkedValues);
            // the alert mail has lines and charts only.
            let tableless = ["many", "alert", "alertcharts"].contains(page.name)
            #expect(
                (tableless || page.checkedCells > 20) && page.brokenCells.isEmpty,
                "\(at): number cells on two lines: \(page.brokenCells)")
            #expect(
                (page.name == "alertcharts" || page.checkedValues > (page.name == "alert" ? 2 : 20))
                    && page.brokenValues.isEmpty,
                "\(at): numbers or dates broken over lines (\(page.checkedValues) checked): \(page.brokenValues)")
            // Lines break between words, never inside one (`Recommendatio` / `n system traffic`).
            #expect(
                (page.name == "alertcharts" || page.checkedWords > 10) && page.brokenWords.isEmpty,
                "\(at): words broken over lines: \(page.brokenWords)")
            #expect(page.styleElements == 0 && page.scripts == 0, "\(at): inline styles only, no script")
            for image in page.images {
                #expect(
                    !(image.alt ?? "").trimmingCharacters(in: .whitespaces).isEmpty,
                    "\(at): an image without alt text: \(image)")
                #expect(image.complete && image.naturalWidth > 0, "\(at): an image did not load: \(image)")
            }
            for figure in page.svgs {
                #expect(
                    !(figure.title ?? "").isEmpty && !(figure.desc ?? "").isEmpty,
                    "\(at): a chart without <title>/<desc>")
            }
            let smallest = try #require(page.smallestChartText, "\(at): no chart text measured")
            #expect(page.chartTexts > 0 && smallest >= 9, "\(at): chart text shown at \(smallest) px")
        }
        let mailPhone = try #require(layouts.first { $0.name == "mail" && $0.width == 390 })
        // The default chart metric (visits) of two counters: a 2× PNG each, saying what it shows.
        #expect(mailPhone.images.count == 2)
        #expect(mailPhone.images.allSatisfy { $0.naturalWidth == 720 && $0.shownTextSize != nil })
        #expect(
            mailPhone.images.contains {
                ($0.alt ?? "").range(
                    of: #"^Visits (rose|fell) [0-9]+\.[0-9]% to [0-9 ]+$"#, options: .regularExpression) != nil
            },
            "\(mailPhone.images.map(\.alt))")
        #expect(try #require(layouts.first { $0.name == "quarter" && $0.width == 390 }).images.count == 3)
        #expect(
            try #require(layouts.first { $0.name == "many" && $0.width == 390 }).images.count == 30,
            "every counter keeps its chart")
        // The alert charts: the title whole (the counter's name was cut), no text past the edge, and
        // the `expected ~23` label clear of the data line.
        for page in layouts where page.name == "alertcharts" {
            #expect(
                page.svgs.count >= 2 && page.clippedTexts.isEmpty,
                "alert charts at \(page.width) px: texts cut: \(page.clippedTexts)")
            #expect(
                page.checkedLabels == page.svgs.count && page.labelsOnLines.isEmpty,
                "alert charts at \(page.width) px: the line runs through \(page.labelsOnLines)")
        }
        let weekPhone = try #require(layouts.first { $0.name == "week" && $0.width == 390 })
        #expect(weekPhone.svgs.count == 6 && weekPhone.images.isEmpty)
        #expect(
            try #require(layouts.first { $0.name == "sources" && $0.width == 390 }).svgs.count == 1,
            "the bar view of the top rows")

        // Screenshots: the mail on a phone (its first 2000 px: the first counter whole), the report page
        // on a desktop; kept for the README with METRIKA_KEEP_SCREENSHOTS=1 (docs/images/).
        for (name, width, kept) in [("mail", 390, "mail-phone.png"), ("week", 1280, "report-desktop.png")] {
            let page = try #require(layouts.first { $0.name == name && $0.width == width })
            let shot = home.path + "/" + kept
            let captured = try runProcess(
                chromium,
                Self.baseArguments(profile: home.path) + [
                    "--window-size=\(width),\(min(page.scrollHeight + 8, width < 500 ? 2000 : 4000))",
                    "--virtual-time-budget=10000",
                    "--screenshot=" + shot, "file://" + (pages.shots["\(name)-\(width)"] ?? "")
                ],
                environment: Self.browserEnvironment(home: home.path), timeout: 120)
            #expect(captured.status == 0, "\(captured.stderr.suffix(500))")
            let measured = try runProcess(
                "/usr/bin/env", ["python3", Self.scripts.appendingPathComponent("png_stats.py").path, shot, "0072B2"],
                environment: Self.toolEnvironment, timeout: 120)
            try #require(measured.status == 0, "png_stats.py: \(measured.stderr)")
            let stats = try JSONDecoder().decode(Stats.self, from: Data(measured.stdout.utf8))
            #expect(stats.width == width && stats.paintedShare > 0.02, "\(kept) looks blank: \(stats)")
            #expect((stats.near["0072B2"] ?? 0) > 300, "\(kept): no chart line on screen: \(stats)")
            if ProcessInfo.processInfo.environment["METRIKA_KEEP_SCREENSHOTS"] == "1" {
                let target = Binaries.repositoryRoot.appendingPathComponent("docs/images/" + kept).path
                try? FileManager.default.removeItem(atPath: target)
                try FileManager.default.copyItem(atPath: shot, toPath: target)
            }
        }
    }
}
