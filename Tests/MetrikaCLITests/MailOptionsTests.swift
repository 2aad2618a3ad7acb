import Foundation
import Testing

@testable import MetrikaCLI
@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaUseCases

/// `mail --period` takes the named periods of `report`; the length is `--last`; the old `--period 7d`
/// still works, with one deprecation line.
@Suite("Mail options")
struct MailOptionsTests {
    static func window(_ arguments: [String]) throws -> (MailComposer.Window, [String]) {
        let options = try ArgumentParser.parse(arguments, options: MailCommand.allOptions)
        var notes: [String] = []
        let window = try MailCommand.window(options) { notes.append($0) }
        return (window, notes)
    }

    @Test(arguments: [
        ([String](), MailComposer.Window.last(days: 7)),
        (["--last", "30d"], .last(days: 30)),
        (["--last", "4w"], .last(days: 28)),
        (["--period", "lastWeek"], .period(.lastWeek)),
        (["--period", "lastmonth"], .period(.lastMonth))
    ])
    func windows(arguments: [String], expected: MailComposer.Window) throws {
        let (window, notes) = try Self.window(arguments)
        #expect(window == expected)
        #expect(notes.isEmpty)
    }

    @Test(arguments: [("7d", 7), ("2w", 14), ("30D", 30)])
    func theOldSpellingStillWorksWithOneWarning(text: String, days: Int) throws {
        let (window, notes) = try Self.window(["--period", text])
        #expect(window == .last(days: days))
        #expect(notes == ["Warning: --period \(text) is deprecated: use --last \(text)"])
    }

    @Test(arguments: [
        (["--period", "fortnight"], "--period 'fortnight' is not a period"),
        (["--period", "0d"], "--period must be a number of days or weeks"),
        (["--period", "400d"], "--period must be a number of days or weeks"),
        (["--last", "0d"], "--last must be a number of days or weeks"),
        (["--last", "lastWeek"], "--last must be a number of days or weeks"),
        (["--last", "400d"], "--last must be a number of days or weeks such as 7d, 30d or 4w (at most 366 days)"),
        (["--period", "lastWeek", "--last", "7d"], "--period and --last contradict each other"),
        (
            ["--period", "last7days"],
            "--period last7days runs to today, whose numbers are still coming in, and a mail covers finished days: use --last 7d for the 7 days to yesterday"
        ),
        (["--period", "last3000days"], "--period last3000days runs to today"),
        (
            ["--period", "thisWeek"],
            "--period thisWeek runs to today, whose numbers are still coming in, and a mail covers finished days: use --last Nd"
        ),
        (["--period", "today"], "--period today runs to today"),
        (["--period", "thisMonth"], "--period thisMonth runs to today"),
        (["--period", "thisYear"], "--period thisYear runs to today")
    ])
    func badWindowsAreRefused(arguments: [String], message: String) throws {
        var notes: [String] = []
        let options = try ArgumentParser.parse(arguments, options: MailCommand.allOptions)
        let error = #expect(throws: UsageError.self) { try MailCommand.window(options) { notes.append($0) } }
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error?.message))")
        // A refused value gets the error alone, never a deprecation note suggesting it again.
        #expect(notes.isEmpty, "\(notes)")
    }

    /// The named periods a mail takes end yesterday at the latest.
    @Test func theNamedPeriodsOfAMailAreFinishedDays() {
        let today = Day(iso: "2026-12-01")!
        for period in [NamedPeriod.yesterday, .lastWeek, .lastMonth, .lastYear] {
            #expect(!period.endsToday && period.days(today: today).to < today, "\(period)")
        }
        for period in [NamedPeriod.today, .thisWeek, .thisMonth, .thisYear, .lastDays(7)] {
            #expect(period.endsToday && period.days(today: today).to == today, "\(period)")
        }
    }

    /// Through the CLI: the warning is one line on stderr, before anything else the run says.
    @Test func theDeprecationIsOneLineOnStderr() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "metrika-mail-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Offline with an empty history: the run stops at the unknown counter, without a request.
        let result = await CLIConventionsTests.run([
            "mail", "--counter", "1001", "--to", "a@example.com", "--period", "7d", "--dry-run", "--offline", "--db",
            directory + "/h.sqlite"
        ])
        let lines = result.err.split(separator: "\n").map(String.init)
        #expect(lines.first == "Warning: --period 7d is deprecated: use --last 7d", "\(result.err)")
        #expect(lines.filter { $0.contains("deprecated") }.count == 1)
        #expect(result.code == ExitCode.config, "\(result.err)")
        #expect(result.out.isEmpty)

        let current = await CLIConventionsTests.run([
            "mail", "--counter", "1001", "--to", "a@example.com", "--last", "7d", "--dry-run", "--offline", "--db",
            directory + "/h.sqlite"
        ])
        #expect(!current.err.contains("deprecated"), "\(current.err)")
    }

    /// Completions (and the man page) offer the mail only the periods it takes; report keeps them all.
    @Test func completionsOfferTheMailOnlyFinishedPeriods() throws {
        let mail = try #require(MailCommand.options.first { $0.name == "period" })
        #expect(mail.values == .choices(["yesterday", "lastWeek", "lastMonth", "lastYear"]))
        let report = try #require(ReportCommand.options.first { $0.name == "period" })
        guard case .choices(let names) = report.values else {
            Issue.record("report --period offers no names")
            return
        }
        #expect(names.contains("thisWeek") && names.contains("last30days") && names.contains("lastWeek"))
        let bash = CompletionScript.bash()
        #expect(bash.contains("yesterday lastWeek lastMonth lastYear"), "the mail's periods in the bash script")
    }

    @Test func helpShowsBothOptions() async {
        let help = await CLIConventionsTests.run(["mail", "--help"])
        #expect(help.out.contains("--last Nd|Nw"))
        #expect(help.out.contains("--period NAME"))
    }

    /// --telegram alone is a delivery: the usage line says --to and/or --telegram, and so does the
    /// refusal when neither is given.
    @Test func theUsageLineSaysToAndOrTelegram() async {
        let help = await CLIConventionsTests.run(["mail", "--help"])
        #expect(
            help.out.contains(
                "mail --counter ID[,ID…] (--to ADDR[,ADDR…] [--telegram CHAT[,CHAT…]] | --telegram CHAT[,CHAT…]) [--sender ADDR]"
            ), "\(help.out)")
        let none = await CLIConventionsTests.run(["mail", "--counter", "1001"])
        #expect(none.code == 64 && none.err.contains("Missing --to ADDR and/or --telegram CHAT"), "\(none.err)")
    }

    // MARK: - The request

    static func request(_ arguments: [String]) throws -> MailCommand.Request {
        let options = try ArgumentParser.parse(
            ["--counter", "1001", "--to", "me@example.com"] + arguments, options: MailCommand.allOptions)
        let context = CLIContext(
            environment: ["HOME": "/nonexistent", "USER": "cron"], stdout: TextSink(), stderr: TextSink(),
            transport: CLIConventionsTests.NoNetwork())
        return try MailCommand.parse(options, context: context)
    }

    @Test(arguments: [
        (["--dry-run"], MailCommand.Destination.standardOutput),
        (["--output", "-"], .standardOutput),
        (["--output", "/tmp/week.eml"], .file("/tmp/week.eml")),
        (["--sendmail", "/bin/true"], .sendmail("/bin/true"))
    ])
    func theDestinationIsDecidedBeforeTheMailIsComposed(arguments: [String], destination: MailCommand.Destination)
        throws
    {
        let request = try Self.request(arguments)
        #expect(request.destination == destination)
        #expect(request.mail.counterIDs == [1001] && request.mail.recipients.map(\.address) == ["me@example.com"])
        #expect(request.mail.window == .last(days: 7) && !request.offline)
    }

    @Test func aMissingSendmailOrTwoDestinationsAreRefusedFirst() throws {
        #expect(throws: CLIFailure.noSendmail(path: "/nonexistent/sendmail")) {
            try Self.request(["--sendmail", "/nonexistent/sendmail"])
        }
        let error = #expect(throws: UsageError.self) { try Self.request(["--dry-run", "--output", "x.eml"]) }
        #expect(error?.message == "Choose one of --sendmail, --output and --dry-run")
    }

    /// Local addresses are the usual cron targets: `--to root@localhost` and `--sender alice@vm` are
    /// taken as given; the default sender is the user at this host (`USER@host`), not a made-up one.
    @Test func localAddressesAndTheUsersOwnSenderAreTaken() throws {
        let options = try ArgumentParser.parse(
            ["--counter", "1001", "--to", "root@localhost", "--sender", "alice@vm", "--dry-run"],
            options: MailCommand.allOptions)
        let context = CLIContext(
            environment: ["HOME": "/nonexistent", "USER": "cron"], stdout: TextSink(), stderr: TextSink(),
            transport: CLIConventionsTests.NoNetwork())
        let request = try MailCommand.parse(options, context: context)
        #expect(request.mail.recipients.map(\.address) == ["root@localhost"])
        #expect(request.mail.sender.address == "alice@vm")
        let byDefault = try Self.request(["--dry-run"])
        #expect(
            byDefault.mail.sender.address == "cron@" + ProcessInfo.processInfo.hostName
                || byDefault.mail.sender.address == "cron@localhost")
        #expect(byDefault.mail.sender.displayName == "metrika")
    }

    @Test(arguments: [
        (["USER": "alice"], "vm", "alice@vm"),
        (["USER": "alice"], "mail.example.org", "alice@mail.example.org"),
        (["LOGNAME": "bob"], "vm", "bob@vm"),
        (["USER": "", "LOGNAME": "bob"], "vm", "bob@vm"),
        ([:], "vm", "metrika@vm"),
        (["USER": "alice"], "under_score", "alice@localhost"),
        (["USER": "alice", "METRIKA_SENDER": "Cron <cron@example.com>"], "vm", "cron@example.com")
    ])
    func theDefaultSenderIsTheUserAtThisHost(environment: [String: String], host: String, expected: String) throws {
        #expect(try MailSender.address(given: nil, environment: environment, hostName: host).address == expected)
    }

    @Test func garbageIsStillRefusedAsASender() {
        #expect(throws: MIMEAddress.InvalidAddress.self) {
            try MailSender.address(given: "alice@vm.", environment: [:], hostName: "vm")
        }
        #expect(throws: MIMEAddress.InvalidAddress.self) {
            try MailSender.address(given: "alice", environment: [:], hostName: "vm")
        }
    }
}
