import Foundation
import MetrikaModel
import Testing

/// `metrika mail` through a real mail chain on loopback: metrika → msmtp (Debian's sendmail-compatible
/// client) → aiosmtpd (a real SMTP server process) storing what it receives; the stored message is
/// read back with Python's email package.
@Suite(.serialized, .blockingLanes) struct MailEndToEndTests {
    static let scripts = Binaries.repositoryRoot.appendingPathComponent("Tests/MetrikaRenderTests/scripts")
    static let msmtp = "/usr/bin/msmtp"
    /// Python helpers run in the test's own environment (PATH, pyenv, HOME), so they find the
    /// python3 that scripts/setup installed aiosmtpd for.
    static let toolEnvironment = ProcessInfo.processInfo.environment

    static var hasAiosmtpd: Bool {
        (try? runProcess("/usr/bin/env", ["python3", "-c", "import aiosmtpd"], environment: toolEnvironment).status)
            == 0
    }

    static var mailChainAvailable: Bool { FileManager.default.isExecutableFile(atPath: msmtp) && hasAiosmtpd }

    /// A running smtp_sink.py (a `ScriptPeer`): stopped when released.
    final class SMTPSink: ScriptPeer, @unchecked Sendable {
        init(directory: String) throws { try super.init(script: "smtp_sink.py", directory: directory, lifetime: 120) }

        /// The stored messages (`.eml`) in arrival order, waiting up to `timeout` for `count` of them.
        func messages(count: Int, timeout: Double = 15) throws -> [String] {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                let names = try kept(suffix: ".eml")
                if names.count >= count || Date() > deadline { return names.map { directory + "/" + $0 } }
                usleep(50_000)
            }
        }
    }

    /// A home directory whose ~/.msmtprc sends to the sink without TLS or authentication.
    static func msmtpHome(port: Int) throws -> TemporaryDirectory {
        let home = try TemporaryDirectory()
        let config =
            "defaults\nauth off\ntls off\nlogfile\naccount default\nhost 127.0.0.1\nport \(port)\nfrom metrika@example.com\n"
        let path = home.path + "/.msmtprc"
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        // msmtp refuses group-readable configs
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return home
    }

    struct Parsed: Decodable {
        struct Node: Decodable {
            let type: String
            let disposition: String?
            let filename: String?
            let contentID: String?
            let parts: [Node]?
            let savedAs: String?
        }
        let headers: [String: String]
        let toAddresses: [String]
        let tree: Node
        let texts: [String: String]
        let files: [Node]
        let defects: [String]
    }

    static func parse(_ path: String, scratch: String) throws -> (Parsed, [Data]) {
        let result = try runProcess(
            "/usr/bin/env", ["python3", scripts.appendingPathComponent("check_mime.py").path, path, scratch],
            environment: toolEnvironment)
        try #require(result.status == 0, "check_mime.py: \(result.stderr)")
        let parsed = try JSONDecoder().decode(Parsed.self, from: Data(result.stdout.utf8))
        let files = try parsed.files.map { try Data(contentsOf: URL(fileURLWithPath: try #require($0.savedAs))) }
        return (parsed, files)
    }

    @Test(
        .enabled(
            if: mailChainAvailable,
            "skipped: needs msmtp and aiosmtpd (apt-get install msmtp python3-aiosmtpd, or run scripts/setup)"))
    func mailsThroughMsmtpToARealSMTPServer() throws {
        let api = try FakeAPI()
        let spool = try TemporaryDirectory()
        let sink = try SMTPSink(directory: spool.path)
        let home = try Self.msmtpHome(port: sink.port)
        let environment = metrikaEnvironment(api: api, home: home.path)
        let result = try metrika(
            [
                "mail", "--counter", "1001,1002", "--to", "Иван Петров <ivan@example.com>, ops@example.org",
                "--sender", "Metrika <metrika@example.com>", "--last", "7d", "--sendmail", Self.msmtp
            ],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        // Sent, and quiet about it: cron mails whatever a job prints on stderr (-v or a terminal say "Mailed …").
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let stored = try sink.messages(count: 1)
        try #require(stored.count == 1, "the SMTP server stored \(stored.count) messages")

        // The envelope msmtp used came from the headers (sendmail -t).
        let envelope =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: stored[0].replacingOccurrences(of: ".eml", with: ".json"))))
            as? [String: Any]
        #expect(envelope?["rcpt_tos"] as? [String] == ["ivan@example.com", "ops@example.org"])

        let scratch = try TemporaryDirectory()
        let (parsed, files) = try Self.parse(stored[0], scratch: scratch.path)
        #expect(parsed.defects.isEmpty, "\(parsed.defects)")
        let subject = try #require(parsed.headers["Subject"])
        #expect(subject.hasPrefix("Metrika: Интернет-магазин «Ромашка», <script>alert(\"x\")</script> & Co, "))
        #expect(parsed.headers["To"] == "Иван Петров <ivan@example.com>, ops@example.org")
        #expect(parsed.headers["From"] == "Metrika <metrika@example.com>")
        #expect(parsed.tree.type == "multipart/mixed")
        let top = try #require(parsed.tree.parts)
        #expect(top.map(\.type) == ["multipart/alternative", "image/svg+xml", "image/svg+xml"])
        let alternative = try #require(top[0].parts)
        #expect(alternative.map(\.type) == ["text/plain", "multipart/related"])
        #expect(
            try #require(alternative[1].parts).map(\.type) == ["text/html", "image/png", "image/png"],
            "inline charts are PNG: Gmail and Outlook drop SVG")
        let plain = try #require(parsed.texts["text/plain"])
        #expect(plain.contains("Change against the previous 7 days:"))
        #expect(plain.contains("Visits"))
        let html = try #require(parsed.texts["text/html"])
        #expect(html.contains("&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; Co"))
        #expect(!html.contains("<script"))
        #expect(
            html.components(separatedBy: "<img ").count == 3
                && html.components(separatedBy: "max-width:100%;height:auto").count == 3,
            "each chart shrinks to a phone's width")
        for part in try #require(alternative[1].parts).dropFirst() {
            let id = try #require(part.contentID).trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
            #expect(html.contains("src=\"cid:\(id)\""))
        }

        // The attached charts are byte for byte what `metrika chart` writes for the same days.
        let names = top.dropFirst().compactMap(\.filename)
        #expect(
            names.count == 2 && names[0].hasPrefix("metrika-1001-") && names[1].hasPrefix("metrika-1002-")
                && names.allSatisfy { $0.hasSuffix(".svg") })
        #expect(files.count == 4)
        // Python walks the inline PNGs (1001, 1002) first, then the SVG attachments (1001, 1002).
        let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(files[0].prefix(8) == pngSignature && files[1].prefix(8) == pngSignature)
        #expect(files[2].starts(with: Data("<?xml".utf8)) && files[3].starts(with: Data("<?xml".utf8)))
        let weight = try FileManager.default.attributesOfItem(atPath: stored[0])[.size] as? Int ?? 0
        #expect(weight < 400_000, "a 2-counter week weighs \(weight) bytes (docs/cron.md)")
        let chartFile = home.path + "/1001.svg"
        let chart = try metrika(
            ["chart", "--counter", "1001", "--from", "7daysAgo", "--to", "yesterday", "--output", chartFile],
            environment: environment)
        #expect(chart.status == 0, "\(chart.stderr)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: chartFile)) == files[2], "attachment differs from the chart file")
    }

    @Test(
        .enabled(
            if: mailChainAvailable,
            "skipped: needs msmtp and aiosmtpd (apt-get install msmtp python3-aiosmtpd, or run scripts/setup)"))
    func aFailingSendmailIsANonZeroExitWithItsMessage() throws {
        let api = try FakeAPI()
        // Port 1 on loopback: nothing listens there, so msmtp cannot connect.
        let home = try Self.msmtpHome(port: 1)
        let result = try metrika(
            [
                "mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com",
                "--sendmail", Self.msmtp
            ],
            environment: metrikaEnvironment(api: api, home: home.path))
        #expect(result.status == 69)
        #expect(result.stderr.contains("Error: /usr/bin/msmtp failed (exit status"))
        #expect(result.stderr.contains("cannot connect to 127.0.0.1"), "msmtp's own words: \(result.stderr)")
        #expect(result.stderr.contains("the mail was not sent"))
    }

    @Test func theMessageCanBeWrittenToAFileOrPrinted() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(api: api, home: home.path)
        let output = home.path + "/report.eml"
        let written = try metrika(
            [
                "mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--output",
                output
            ], environment: environment)
        #expect(written.status == 0, "\(written.stderr)")
        let scratch = try TemporaryDirectory()
        let (parsed, files) = try Self.parse(output, scratch: scratch.path)
        #expect(parsed.defects.isEmpty)
        #expect(parsed.toAddresses == ["ivan@example.com"])
        #expect(files.count == 2)

        let printed = try metrika(
            [
                "mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--dry-run",
                "--period", "2w"
            ], environment: environment)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.contains("\r\nMIME-Version: 1.0\r\n"))
        #expect(!printed.stdout.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF line ends only")
    }

    @Test func withoutTheRasterizerTheMailFallsBackToSVGWithOneWarning() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        let output = home.path + "/report.eml"
        // PATH without rsvg-convert (metrika itself needs no PATH here: --output writes a file).
        let result = try metrika(
            [
                "mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--output",
                output
            ],
            environment: metrikaEnvironment(api: api, home: home.path, extra: ["PATH": home.path]))
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Warning:") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.contains("apt-get install librsvg2-bin") == true)
        let scratch = try TemporaryDirectory()
        let (parsed, _) = try Self.parse(output, scratch: scratch.path)
        let related = try #require(parsed.tree.parts?.first?.parts?.last?.parts)
        #expect(related.map(\.type) == ["text/html", "image/svg+xml"])
        #expect(parsed.tree.parts?.dropFirst().map(\.type) == ["image/svg+xml"])
    }

    /// `--last` is the length, `--period` a named period as in `report`; the old `--period 7d` still
    /// works, with one deprecation line on stderr.
    @Test func lastIsALengthAndPeriodANamedPeriod() throws {
        let api = try FakeAPI()
        let home = try TemporaryDirectory()
        // 2025-06-18 is a Wednesday: last week is Monday 06-09 to Sunday 06-15.
        let environment = metrikaEnvironment(
            api: api, home: home.path,
            extra: ["METRIKA_NOW": "2025-06-18T12:00:00Z", "METRIKA_DB": home.path + "/h.sqlite"])
        let base = [
            "mail", "--counter", "1001", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--dry-run"
        ]
        let named = try metrika(base + ["--period", "lastWeek"], environment: environment)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.contains("metrika-1001-2025-06-09_2025-06-15.svg"), "the chart covers last week")
        #expect(!named.stderr.contains("deprecated"))
        let last = try metrika(base + ["--last", "7d"], environment: environment)
        #expect(last.status == 0, "\(last.stderr)")
        #expect(
            last.stdout.contains("metrika-1001-2025-06-11_2025-06-17.svg"), "the last 7 complete days end yesterday")
        #expect(!last.stderr.contains("deprecated"))
        let old = try metrika(base + ["--period", "7d"], environment: environment)
        #expect(old.status == 0, "\(old.stderr)")
        #expect(old.stdout.contains("metrika-1001-2025-06-11_2025-06-17.svg"))
        #expect(
            old.stderr.split(separator: "\n").filter { $0.contains("deprecated") } == [
                "Warning: --period 7d is deprecated: use --last 7d"
            ], "\(old.stderr)")
    }

    /// Long windows, as the built binary mails them against the simulator: a quarter's table has a row
    /// per week, the very rows `metrika report --group week --offline` prints for the same days from
    /// the history the mail filled; and three counters' quarter, 200 KB of HTML before, stays under
    /// Gmail's clip (102 KB; metrika keeps 100 000 bytes) with every counter's summary and chart.
    @Test func longWindowsMailWeeklyRowsAndStayUnderGmailsClip() throws {
        let now = "2026-11-25T09:00:00Z"
        let api = try FakeAPI(arguments: ["--now", now])
        let home = try TemporaryDirectory()
        let environment = metrikaEnvironment(
            api: api, home: home.path, extra: ["METRIKA_NOW": now, "METRIKA_DB": home.path + "/h.sqlite"])
        let base = ["mail", "--to", "ivan@example.com", "--sender", "metrika@example.com", "--last", "90d"]

        let quarter = home.path + "/quarter.eml"
        let mailed = try metrika(base + ["--counter", "1001", "--output", quarter], environment: environment)
        try #require(mailed.status == 0, "\(mailed.stderr)")
        let scratch = try TemporaryDirectory()
        let (parsed, _) = try Self.parse(quarter, scratch: scratch.path)
        let plain = try #require(parsed.texts["text/plain"]).replacingOccurrences(of: "\r\n", with: "\n")
        let html = try #require(parsed.texts["text/html"])
        // 90 days to yesterday (24 Nov): 27 Aug – 24 Nov.
        #expect(parsed.files.contains { $0.filename == "metrika-1001-2026-08-27_2026-11-24.svg" })
        let report = try metrika(
            [
                "report", "--counter", "1001", "--from", "2026-08-27", "--to", "2026-11-24", "--group", "week",
                "--offline"
            ], environment: environment)
        try #require(report.status == 0, "\(report.stderr)")
        #expect(
            report.stdout.contains("Week of") && report.stdout.contains("2026-08-27 (4 days)")
                && !report.stdout.contains("—"), "\(report.stdout)")
        #expect(
            plain.hasPrefix(report.stdout),
            "the mail's table is not report --group week's:\n\(plain.prefix(1500))\n---\n\(report.stdout)")
        #expect(
            html.contains(">By week<")
                && html.contains(
                    ">27–30\u{00A0}Aug<br><span style=\"font-size:12px;color:#5F5F5F\">4\u{00A0}days</span></th>"),
            "\(html.prefix(400))")

        let three = home.path + "/three.eml"
        let big = try metrika(base + ["--counter", "1001,1002,1003", "--output", three], environment: environment)
        try #require(big.status == 0, "\(big.stderr)")
        let (threeParsed, _) = try Self.parse(three, scratch: scratch.path)
        let threeHTML = try #require(threeParsed.texts["text/html"])
        #expect(threeHTML.utf8.count < 100_000, "\(threeHTML.utf8.count) bytes of HTML")
        for id in ["1001", "1002", "1003"] {
            #expect(threeHTML.contains("counter\u{00A0}\(id)"), "counter \(id) is missing")
            #expect(threeHTML.contains("cid:chart-\(id)-1."), "counter \(id)'s chart is missing")
        }
    }
}
