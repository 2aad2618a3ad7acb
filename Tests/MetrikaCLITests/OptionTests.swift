import Testing

@testable import MetrikaCLI
@testable import MetrikaModel

/// Typed option keys: read by key, with their parser's value and errors; usage lines generated from
/// the same specs help shows.
@Suite("Typed options")
struct OptionTests {
    static let limit = Option<Int?>.integer("limit", help: "Rows", in: 1...100)
    static let name = Option<String?>.text("name", value: "TEXT", help: "A name")
    static let tags = Option<[String]>.words("tag", value: "LIST", help: "Tags")
    static let sizes = Option<[Int]>.list("size", value: "LIST", help: "Sizes") { text in
        guard let size = Int(text) else { throw UsageError("--size '\(text)' is not a number") }
        return size
    }
    static let quiet = Option<Bool>.flag("quiet", short: "q", help: "Say less")
    static var specs: [OptionSpec] { [limit.spec, name.spec, tags.spec, sizes.spec, quiet.spec] }

    static func parse(_ arguments: [String]) throws -> ParsedOptions {
        try ArgumentParser.parse(arguments, options: specs)
    }

    @Test func absentOptionsReadAsNothing() throws {
        let options = try Self.parse([])
        #expect(try options[Self.limit] == nil)
        #expect(options[Self.name] == nil)
        #expect(options[Self.tags].isEmpty)
        #expect(try options[Self.sizes].isEmpty)
        #expect(options[Self.quiet] == false)
        #expect(!options.contains(Self.limit) && !options.contains(Self.quiet) && !options.contains(Self.tags))
    }

    @Test func valuesAreTypedTheLastOneWinsAndListsSplit() throws {
        let options = try Self.parse([
            "--limit", "5", "--limit=7", "--name", "a", "--name", "b", "--tag", "x, y", "--tag", ",z", "--size", "1,2",
            "-q"
        ])
        #expect(try options[Self.limit] == 7)
        #expect(options[Self.name] == "b")
        #expect(options[Self.tags] == ["x", "y", "z"])
        #expect(try options[Self.sizes] == [1, 2])
        #expect(options[Self.quiet])
        #expect(options.contains(Self.limit) && options.contains(Self.quiet))
    }

    @Test func anEmptyListIsGivenButHoldsNothing() throws {
        let options = try Self.parse(["--tag", ","])
        #expect(options.contains(Self.tags))
        #expect(options[Self.tags].isEmpty)
    }

    @Test(arguments: [
        (["--limit", "0"], "--limit must be a whole number from 1 to 100, not '0'"),
        (["--limit", "ten"], "--limit must be a whole number from 1 to 100, not 'ten'"),
        (["--size", "1,x"], "--size 'x' is not a number")
    ])
    func badValuesAreTheKeysUsageError(arguments: [String], message: String) throws {
        let options = try Self.parse(arguments)
        do {
            _ = try options[Self.limit]
            _ = try options[Self.sizes]
            Issue.record("no error for \(arguments)")
        } catch let error as UsageError {
            #expect(error.message == message)
            #expect(error.exitCode == ExitCode.usage)
        }
    }

    @Test func aDefaultIsSetByKey() throws {
        var options = try Self.parse([])
        options.set(Self.tags, to: ["1,2", "3"])
        #expect(options.contains(Self.tags))
        #expect(options[Self.tags] == ["1", "2", "3"])
    }

    @Test func describedKeepsTheNameAndParserButNotTheWording() throws {
        let counter = Option.counter.described("The counter", value: "ID")
        #expect(counter.name == "counter" && counter.spec.short == "c")
        #expect(counter.spec.valueName == "ID" && counter.spec.help == "The counter")
        #expect(Option.counter.spec.valueName == "ID[,ID…]")
        let options = try ArgumentParser.parse(["-c", "1,2"], options: [counter.spec])
        #expect(options[counter] == ["1", "2"])
        #expect(options[.counter] == ["1", "2"])
    }

    // MARK: - Usage lines

    @Test func usageTermsRenderFromTheSpecs() {
        let specs = [Self.name.spec, Self.limit.spec, Self.quiet.spec, Self.tags.spec]
        let synopses: [[UsageTerm]] = [
            [
                .required(Self.name), .optional(Self.limit),
                .optional([.oneOf([[.option("quiet")], [.option("tag"), .optional(Self.limit)]])]), .moreOptions
            ],
            [.group([.oneOf([[.required(Self.quiet)], [.required(Self.tags)]])]), .argument]
        ]
        let line = UsageLine.render(name: "demo", synopses: synopses, specs: specs, arguments: ["a", "b"])
        #expect(
            line
                == "demo --name TEXT [--limit N] [--quiet | --tag LIST [--limit N]] [options] | demo (--quiet | --tag LIST) a|b"
        )
    }

    /// Every command's usage line, as `--help`, the usage error and the man page print it. The
    /// placeholders are the option table's (alert's `--currency`, mail's `--last`, logs' dateless
    /// `--clickhouse` said `CODE`, `7d`, `URL` by hand before).
    @Test(arguments: [
        ("counters", "counters [--search TEXT] [--status active|deleted] [--format table|csv|json]"),
        (
            "logs",
            "logs --counter ID --source visits|hits --from DATE --to DATE [--fields LIST] (--output FILE|- | --clickhouse URL[,URL…] [--cluster NAME] [--table NAME]) | logs --counter ID --source visits|hits --clickhouse URL[,URL…] [--late-days N] | logs --counter ID (--list [--json] | --clean-all [--clickhouse URL[,URL…]] [--table NAME])"
        ),
        (
            "report",
            "report --counter ID[,ID…]|all [--from DATE] [--to DATE | --period NAME] [--group day|week|month] [--metrics LIST] [--dimensions LIST] [--format table|csv|json|html] [--output FILE.html] [options]"
        ),
        ("goals", "goals --counter ID [--format table|csv|json]"),
        (
            "chart",
            "chart --counter ID[,ID…] [--metrics LIST] [--from DATE] [--to DATE | --period NAME] [--group day|week|month] --output FILE.svg|FILE.png [--format svg|png] [options]"
        ),
        (
            "mail",
            "mail --counter ID[,ID…] (--to ADDR[,ADDR…] [--telegram CHAT[,CHAT…]] | --telegram CHAT[,CHAT…]) [--sender ADDR] [--subject TEXT] [--metrics LIST] [--last Nd|Nw | --period NAME] [--sendmail PATH | --output FILE.eml | --dry-run]"
        ),
        (
            "alert",
            "alert [--counter ID[,ID…]] [--today] [--webhook URL] [--mail ADDR[,ADDR…]] [--telegram CHAT[,CHAT…]] [--currency RUB|USD|EUR|YND] [--dry-run] | alert --status [--json] | alert --test [--telegram CHAT[,CHAT…]] [--webhook URL] [--mail ADDR[,ADDR…]] | alert --forget ID|all"
        ),
        ("sync", "sync [--counter ID[,ID…]] [--from DATE] [--db PATH] [--clickhouse URL[,URL…] [--cluster NAME]]"),
        (
            "mcp",
            "mcp [--token-file PATH] [--profile NAME] | mcp --listen HOST:PORT [--public-url URL] [--allow-origin ORIGIN] [options]"
        ),
        ("mcp token", "mcp token add|list|revoke [--counters ID[,ID…]] [--oauth] [--json]"),
        ("bot", "bot --allow CHAT[,CHAT…] [--once] [options]"),
        ("cache info", "cache info [--db PATH] [--format table|csv|json]"),
        ("cache prune", "cache prune --before DATE [--db PATH]"),
        (
            "login",
            "login [--client-id ID --client-secret SECRET | --token-stdin] [--scope read|write] [--store file|keyring] [--token-file PATH] [--profile NAME]"
        ),
        ("logout", "logout [--local-only] [--token-file PATH] [--profile NAME]"),
        ("auth status", "auth status [--token-file PATH] [--profile NAME]"),
        ("completions", "completions bash|zsh|fish"),
        ("live", "live [--counter ID[,ID…]] [--every MINUTES]"),
        (
            "explain",
            "explain --counter ID [--metric METRIC] [--date DAY | --from DATE --to DATE] [--against BASELINE] [--dimensions DIM,…] [--format table|csv|json]"
        ),
        (
            "annotate",
            "annotate --counter ID --date DATE [--time HH:MM] --title TEXT [--message TEXT] [--group A-E]"
        )
    ])
    func everyCommandsUsageComesFromItsSpecs(name: String, usage: String) throws {
        let command = try #require(CLI.commands.first { $0.name == name })
        #expect(command.usage == usage)
    }

    @Test func everyCommandHasAUsageLine() {
        #expect(CLI.commands.count == 22)
        for command in CLI.commands {
            #expect(command.usage.hasPrefix(command.name + " ") || command.usage == command.name)
        }
    }

    /// Two keys may share a name only in different commands (`--to DATE` of report, `--to ADDR` of
    /// mail): within one command every name and every one-letter alias is taken once.
    @Test func noCommandTakesTwoOptionsOfOneName() {
        for command in CLI.commands {
            let names = command.allOptions.map(\.name)
            #expect(Set(names).count == names.count, "\(command.name): \(names)")
            let shorts = command.allOptions.compactMap(\.short)
            #expect(Set(shorts).count == shorts.count, "\(command.name): \(shorts)")
        }
    }
}
