import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaSystem
import MetrikaUseCases
import Synchronization

/// What `metrika bot` answers to one command: Telegram HTML (every text from Metrika or the user
/// escaped by `TelegramHTML.escape`, tables in `<pre>`), errors worded with the bot's own words
/// (`ParameterNaming.bot`: "the period of /report", never `--period`).
package struct BotCommands: Sendable {
    /// Where the answers' data comes from: a view of the run's services (`init(services:…)`), or a
    /// test's closures.
    package struct Backend: Sendable {
        /// The counters the token can read.
        package var counters: @Sendable () async throws -> [CounterListing.Item]
        /// The history loader a report request reads through (offline or fetching, as the entry point decides).
        package var loader: @Sendable (ReportRequest) async throws -> HistoryLoader
        /// The open alerts.
        package var alerts: @Sendable () async throws -> [AlertStatus.Entry]
        /// What a report's notes go to (the bot's log, never the chat).
        package var activity: any Activity
        /// The counter of `/report` without one (nil: the counter must be given).
        package var defaultCounter: Int?
        /// Draws `/chart`'s PNG from its SVG (nil: /chart answers that it cannot draw here).
        package var rasterizer: (any ChartRasterizer)?
        /// Explains the counter's visits of a day (nil: yesterday; else a date word the bot checked:
        /// `3daysAgo`, `2026-11-23`) against the alert's baseline (`Explain`; nil: /explain answers
        /// that it cannot here).
        package var explain: (@Sendable (Int, String?) async throws -> Explanation)?
        /// The counter's chart annotations on the days given (`AnnotationText`): lines under /explain's
        /// answer; empty when none or unreadable (nil: none asked for).
        package var annotations: (@Sendable (Int, Day, Day) async -> [Annotation])?
        /// The clock that says how many days a period holds (how `/report` groups its rows).
        package var now: @Sendable () -> Date

        package init(
            counters: @escaping @Sendable () async throws -> [CounterListing.Item],
            loader: @escaping @Sendable (ReportRequest) async throws -> HistoryLoader,
            alerts: @escaping @Sendable () async throws -> [AlertStatus.Entry],
            activity: any Activity, defaultCounter: Int?, rasterizer: (any ChartRasterizer)? = nil,
            explain: (@Sendable (Int, String?) async throws -> Explanation)? = nil,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.now = now
            self.rasterizer = rasterizer
            self.explain = explain
            self.counters = counters
            self.loader = loader
            self.alerts = alerts
            self.activity = activity
            self.defaultCounter = defaultCounter
        }
    }

    /// Seconds a fetched counters list answers `/counters` again without a request (the history
    /// keeps no whole list: the token's counters can change, so it is asked for again after this).
    package static let countersKeptFor: TimeInterval = 300

    /// `fetch` kept for `countersKeptFor` seconds of `now`: a repeated `/counters` makes no request.
    package static func keptCounters(
        _ fetch: @escaping @Sendable () async throws -> [CounterListing.Item], now: @escaping @Sendable () -> Date
    ) -> @Sendable () async throws -> [CounterListing.Item] {
        let kept = Mutex<(items: [CounterListing.Item], at: Date)?>(nil)
        return {
            let time = now()
            if let last = kept.withLock({ $0 }), time >= last.at, time.timeIntervalSince(last.at) < countersKeptFor {
                return last.items
            }
            let items = try await fetch()
            kept.withLock { $0 = (items, time) }
            return items
        }
    }

    /// Columns of `<pre>` a phone shows without scrolling sideways (about 35–40).
    package static let width = 38
    /// Where a narrow table's left-out "before" values can be seen, in the bot's words.
    static let beforeElsewhere = "ask for fewer metrics to see them"
    /// The metrics of `/report`: few enough to fit a phone.
    package static let reportMetrics: [Metric] = [.visits, .users, .bounceRate]

    /// The menu `setMyCommands` sets, in the order shown.
    package static let menu: [TelegramBotCommand] = [
        TelegramBotCommand("report", "Visits, users and bounce rate: /report [counter] [period]"),
        TelegramBotCommand("today", "Today so far: /today [counter]"),
        TelegramBotCommand("chart", "Visits as a chart: /chart [counter] [period]"),
        TelegramBotCommand("explain", "Why a day's visits changed: /explain [counter] [day]"),
        TelegramBotCommand("counters", "The counters this bot can read"),
        TelegramBotCommand("alerts", "The open alerts"),
        TelegramBotCommand("help", "What this bot answers")
    ]

    package static let usage = """
        /report [counter] [period]: visits, users and bounce rate by day (period: today, yesterday, thisWeek, lastWeek, \
        thisMonth, lastMonth, last30days…; default the last 7 days; by week over 35 days, by month over 182)
        /today [counter]: the same for today so far
        /chart [counter] [period]: visits by day as a picture
        /explain [counter] [day]: why a day's visits changed (default yesterday; a day as yesterday, 3daysAgo or \
        2026-11-23), against the same weekday of the 4 weeks before
        /counters: the counters this bot can read
        /alerts: the open alerts
        """

    package let backend: Backend

    package init(backend: Backend) {
        self.backend = backend
    }

    /// An answer: Telegram HTML, or a PNG with its HTML caption.
    package enum Answer: Sendable, Equatable {
        case text(String)
        case photo(Data, caption: String)

        /// The text, or the photo's caption.
        package var html: String {
            switch self {
            case .text(let html): return html
            case .photo(_, let caption): return caption
            }
        }
    }

    /// Whether a chat of this Telegram type (`chat.type`) is a group, where the bot hears everyone's
    /// messages and answers only commands.
    package static func isGroup(_ chatType: String?) -> Bool {
        chatType == "group" || chatType == "supergroup"
    }

    /// The answer to `text` (a message's text, `/report@this_bot 1001 lastWeek`); nil when it is not
    /// for this bot (a command to another bot in a group). `botUsername` is this bot's.
    package func answer(_ text: String, botUsername: String?, inGroup: Bool = false) async -> String? {
        await reply(text, botUsername: botUsername, inGroup: inGroup)?.html
    }

    /// The commands this bot answers (`/start` too, as Telegram's clients send it first).
    static let known: Set<String> = Set(menu.map(\.command) + ["start"])

    /// The command `text` asks of this bot (lower case, without `/` and `@this_bot`) and its
    /// arguments; nil when the message is not for it: a command addressed to another bot, or in a
    /// group (`inGroup`) chatter or a bare command it does not know (maybe another bot's). "" is
    /// a private chat's text that is no command (answered with the usage line).
    package static func command(in text: String, botUsername: String?, inGroup: Bool) -> (
        name: String, arguments: [String]
    )? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
        guard let first = words.first, first.hasPrefix("/") else { return inGroup ? nil : ("", []) }
        var command = String(first.dropFirst())
        var addressed = false
        if let at = command.firstIndex(of: "@") {
            let addressee = command[command.index(after: at)...]
            guard let botUsername, addressee.lowercased() == botUsername.lowercased() else { return nil }
            command = String(command[..<at])
            addressed = true
        }
        command = command.lowercased()
        if inGroup, !addressed, !known.contains(command) { return nil }
        return (command, Array(words.dropFirst()))
    }

    /// The answer to `text`, a photo for /chart; nil when it is not for this bot (`command(in:)`):
    /// in a group only commands are answered, in a private chat other text gets the usage line.
    package func reply(_ text: String, botUsername: String?, inGroup: Bool = false) async -> Answer? {
        guard let (command, arguments) = Self.command(in: text, botUsername: botUsername, inGroup: inGroup) else {
            return nil
        }
        do {
            switch command {
            case "start", "help": return .text("metrika answers:\n" + TelegramHTML.escape(Self.usage))
            case "counters": return .text(try await counters(arguments))
            case "report": return .text(try await report(arguments))
            case "today":
                guard arguments.count <= 1 else { throw BotUsage("/today takes a counter at most, e.g. /today 1001") }
                return .text(try await report(arguments + ["today"], asked: "/today 1001"))
            case "chart": return try await chart(arguments)
            case "explain": return .text(try await explain(arguments))
            case "alerts": return .text(try await alerts(arguments))
            default: return .text(Self.unknownText)
            }
        } catch let error as APIError where Self.chatWords(error) != nil {
            return .text(TelegramHTML.escape(Self.chatWords(error) ?? ""))
        } catch let error as ChartRasterizerError {
            // How to install the rasterizer is for whoever runs the bot: its log, not the chat.
            backend.activity.note("/\(command): \(error.message(.bot))")
            return .text(
                TelegramHTML.escape(
                    "/chart cannot draw pictures on the bot's machine right now (its log says why); try /report"))
        } catch let failure as any MetrikaFailure {
            return .text(TelegramHTML.escape(ParameterNaming.bot.message(of: failure)))
        } catch {
            // Not one of metrika's worded failures: its text is for the bot's log, not the chat.
            backend.activity.note("/\(command) failed: \(type(of: error))")
            return .text("That failed; the bot's log on its machine says more.")
        }
    }

    /// An API refusal in the chat's words: what the person in the chat can do, not the command line
    /// the bot's owner would type (`metrika login`); nil for the others, said as they are.
    static func chatWords(_ error: APIError) -> String? {
        switch error {
        case .accessDenied(_, let counter):
            let which = counter.map { "Counter \($0)" } ?? "That counter"
            return
                "\(which) cannot be read with this bot's Metrika access: check the number (/counters lists the ones it can read)."
        case .unauthorized, .invalidToken:
            return
                "Metrika did not accept this bot's access; whoever runs the bot must sign in again (metrika login on its machine)."
        default:
            return nil
        }
    }

    static let unknownText = TelegramHTML.escape(
        "I answer /report [counter] [period], /today, /chart, /explain, /counters, /alerts and /help.")

    private func noArguments(_ command: String, _ arguments: [String]) throws {
        guard arguments.isEmpty else { throw BotUsage("/\(command) takes nothing after it; try /help") }
    }

    private func counters(_ arguments: [String]) async throws -> String {
        try noArguments("counters", arguments)
        let items = try await backend.counters()
        guard !items.isEmpty else { return TelegramHTML.escape(CounterListing.emptyText) }
        // A line each (a table's columns would cut every name on a phone): the id to copy into /report.
        return items.map { item in
            let counter = item.counter
            let name = TerminalText.sanitize(counter.name, limit: 100)
            let site = TerminalText.sanitize(counter.site, limit: 100)
            return "<code>\(counter.id)</code> " + TelegramHTML.escape(name)
                + (site.isEmpty ? "" : " · " + TelegramHTML.escape(site))
        }.joined(separator: "\n")
    }

    private func alerts(_ arguments: [String]) async throws -> String {
        try noArguments("alerts", arguments)
        let rows = try await backend.alerts().map(\.row)
        guard !rows.isEmpty else { return "No open alerts." }
        return "<pre>" + TelegramHTML.escape(AlertStatusList.text(rows, maxWidth: Self.width)) + "</pre>"
    }

    /// `/report [counter] [period]`: the CLI's period words, a whole number first is the counter; a
    /// long period grouped by week or month as `metrika mail` groups its table (`tableGrouping`), said.
    private func report(_ arguments: [String], asked: String? = nil) async throws -> String {
        var request = try request(arguments, command: "report", metrics: Self.reportMetrics, asked: asked)
        var said = ""
        let days = Self.dayCount(request, now: backend.now())
        let grouping = MailComposer.tableGrouping(days: days)
        if grouping != .day {
            var fields = request.fields
            fields.group = grouping
            request = try ReportRequest(fields)
            said =
                TelegramHTML.escape(
                    "By \(grouping.rawValue): \(days) days are more rows than a chat shows by day (35 at most).") + "\n"
        }
        let loader = try await backend.loader(request)
        let memory = OutputWriter()
        let sink = ReportTableSink(output: memory, maxWidth: Self.width, beforeElsewhere: Self.beforeElsewhere)
        try await HistoryReport(request: request, loader: loader, activity: backend.activity).run(into: sink)
        let table = String(decoding: memory.bytes, as: UTF8.self)
        return said + "<pre>" + TelegramHTML.escape(table.trimmingCharacters(in: .newlines)) + "</pre>"
    }

    /// The days a request's period holds, counted from today in UTC (the counter's own today is at
    /// most a day away: enough to choose how rows are grouped).
    static func dayCount(_ request: ReportRequest, now: Date) -> Int {
        let today = Day(ordinal: Int((now.timeIntervalSince1970 / 86_400).rounded(.down)))
        return max(1, request.from.resolve(today: today).days(to: request.to.resolve(today: today)) + 1)
    }

    /// `/chart [counter] [period]`: visits by day as a PNG, as `metrika chart` draws it.
    private func chart(_ arguments: [String]) async throws -> Answer {
        let request = try request(arguments, command: "chart", metrics: [.visits])
        guard let rasterizer = backend.rasterizer else {
            throw BotUsage("/chart cannot draw pictures on the bot's machine; try /report")
        }
        let loader = try await backend.loader(request)
        let data = try await ChartSeries.load(
            counterIDs: request.counterIDs, from: request.from, to: request.to, metrics: [.visits],
            grouping: request.grouping, refresh: false, loader: loader, activity: backend.activity)
        let chart = ChartSeries.makeChart(data, grouping: request.grouping, title: nil, width: 800, height: nil)
        let png = try await rasterizer.png(fromSVG: Data(chart.render().utf8), scale: 1)
        let names = data.map {
            "<b>" + TelegramHTML.escape(TerminalText.sanitize($0.counter.name, limit: 100)) + "</b>"
        }.joined(separator: ", ")
        let range = data.first.map { " \($0.range.from.iso) … \($0.range.to.iso)" } ?? ""
        return .photo(png, caption: names + TelegramHTML.escape(" · visits" + range))
    }

    /// `/explain [counter] [day]`: a day's visits (default yesterday) against the alert's baseline,
    /// the headline first. A whole number first is the counter; a day is a date word of the CLI's.
    private func explain(_ arguments: [String]) async throws -> String {
        guard arguments.count <= 2 else {
            throw BotUsage("/explain takes a counter and a day, e.g. /explain 1001 2026-11-23")
        }
        var rest = arguments[...]
        let id: Int
        if let first = rest.first, first.allSatisfy(\.isASCII), first.allSatisfy(\.isNumber) {
            guard let number = Int(first), number > 0 else {
                throw BotUsage("/explain takes a counter number, e.g. /explain 1001 (see /counters)")
            }
            id = number
            rest = rest.dropFirst()
        } else if let first = rest.first, (try? DateExpression(parsing: first, option: "date")) == nil {
            throw BotUsage("/explain takes a counter number, then a day, e.g. /explain 1001 2026-11-23 (see /counters)")
        } else if let counter = backend.defaultCounter {
            id = counter
        } else {
            throw BotUsage("Which counter? /explain 1001 (see /counters)")
        }
        guard rest.count <= 1 else {
            throw BotUsage("/explain takes one day after the counter, e.g. /explain 1001 2026-11-23")
        }
        let day = rest.first
        if let day {
            do {
                _ = try DateExpression(parsing: day, option: "date")
            } catch let error as ParameterError {
                // A date before Metrika existed is a date, said so; anything else is not one.
                guard case .badDay = error.problem else {
                    throw BotUsage(
                        "/explain takes a day as yesterday, 3daysAgo or 2026-11-23 after the counter, not \"\(day)\"")
                }
                throw BotUsage(error.message(.bot))
            }
        }
        guard let explain = backend.explain else {
            throw BotUsage("/explain is not available on this bot; try /report")
        }
        do {
            let explanation = try await explain(id, day)
            let text = Self.explanationText(explanation)
            // The owner's chart annotations on the explained day(s), when they fit the one message.
            let period = explanation.listing.period
            let notes = await backend.annotations?(id, period.from, period.to) ?? []
            let lines = notes.map { "\n" + TelegramHTML.escape(AnnotationText.line($0)) }.joined()
            return TelegramHTML.length(text + lines) <= TelegramHTML.messageLimit ? text + lines : text
        } catch let error as ParameterError where error.parameter == .period {
            // Today or a day to come: the chat's words, not the command line's list of parameters.
            guard case .badDay(let value) = error.problem else { throw error }
            throw BotUsage(
                "/explain explains a finished day; \(value) is not finished yet: try /explain \(id) yesterday")
        }
    }

    /// Segments shown per dimension in the chat.
    static let explainedSegments = 3

    /// An explanation as Telegram HTML: the headline in bold, what it compares, then each dimension
    /// (the most concentrated first) with its largest shown changes and their shares. Names from
    /// Metrika are sanitized, cut and escaped; the text stays within one message.
    package static func explanationText(_ explanation: Explanation) -> String {
        let listing = explanation.listing
        var lines = ["<b>" + TelegramHTML.escape(TerminalText.sanitize(explanation.headline, limit: 300)) + "</b>"]
        let period =
            listing.period.from == listing.period.to
            ? listing.period.from.iso : listing.period.from.iso + ".." + listing.period.to.iso
        lines.append(
            TelegramHTML.escape(
                "\(listing.metric.title) on \(period) against \(ExplanationListing.baselineText(listing))"))
        let explained = explanation.parts.map(\.explained)
        // The headline's dimension first (a rate's is not always the most concentrated), then the rest.
        var order = ContributionHeadline.order(explained)
        if let driver = explanation.driver?.part { order = [driver] + order.filter { $0 != driver } }
        for index in order {
            let part = explanation.parts[index]
            let shown = part.explained.shown
            let segments = part.explained.decomposition.segments.indices
                .filter { !part.explained.decomposition.segments[$0].isOther && shown.changes[$0] != 0 }
                .sorted { abs(shown.changes[$0]) > abs(shown.changes[$1]) }
                .prefix(explainedSegments)
            guard !segments.isEmpty else { continue }
            var block = [
                "",
                "<b>" + TelegramHTML.escape(part.dimension.title) + "</b>"
            ]
            for segment in segments {
                let name = TerminalText.sanitize(part.explained.decomposition.segments[segment].name, limit: 60)
                let share = shown.percentShares.map { " (\($0[segment])%)" } ?? ""
                block.append(TelegramHTML.escape("\(name) \(shown.signedText(shown.changes[segment]))\(share)"))
            }
            // Whole dimensions only, and never past one message.
            guard TelegramHTML.length((lines + block).joined(separator: "\n")) <= TelegramHTML.messageLimit else {
                break
            }
            lines += block
        }
        return lines.joined(separator: "\n")
    }

    /// The request of `/report`/`/chart` arguments: a whole number first is the counter, then a period.
    private func request(_ arguments: [String], command: String, metrics: [Metric], asked: String? = nil) throws
        -> ReportRequest
    {
        guard arguments.count <= 2 else {
            throw BotUsage("/\(command) takes a counter and a period, e.g. /\(command) 1001 lastWeek")
        }
        var fields = ReportFields()
        var rest = arguments[...]
        if let first = rest.first, first.allSatisfy(\.isNumber) {
            try ReportFields.counter.read(&fields, [first])
            rest = rest.dropFirst()
        } else if let id = backend.defaultCounter {
            fields.counterIDs = [id]
        } else {
            // The command the user typed: /today's example has no period.
            throw BotUsage("Which counter? \(asked ?? "/\(command) 1001 lastWeek") (see /counters)")
        }
        if let period = rest.first { try ReportFields.period.read(&fields, [period]) }
        if rest.count > 1 {
            throw BotUsage("/\(command) takes one period after the counter, e.g. /\(command) 1001 lastWeek")
        }
        fields.metrics = metrics
        return try ReportRequest(fields)
    }
}

/// A command the bot cannot read: its answer is the sentence.
struct BotUsage: MetrikaFailure {
    let message: String
    init(_ message: String) { self.message = message }
    var exitCode: Int32 { ExitCode.usage }
}

extension ParameterNaming {
    /// The bot's words: a parameter is what it is to its command ("the period of /report"), an
    /// action what the bot's owner does on the machine it runs on.
    package static let bot = ParameterNaming(
        // A date alone is /explain's day (a report's dates are its period).
        name: { $0 == "date" ? "the day of /explain" : "the \($0.words.joined(separator: " ")) of /report" },
        action: { action in
            switch action {
            case .sync(let id):
                return "ask again once whoever runs the bot has filled counter \(id)'s history"
            case .cleanLogs(let id): return "free counter \(id)'s log requests where the bot runs"
            case .watchToday(let id): return "see today against earlier weeks with /report \(id) today"
            case .fetchOnline: return "ask again once whoever runs the bot has filled its history"
            case .compareOtherDays(let id):
                return
                    "/explain compares yesterday with those weekdays only: see the counter's recent days with /report \(id) last30days"
            case .signInAsViewer:
                return "Check the counter with /counters; its owner can grant this bot's account access."
            case .narrowQuery: return "Ask for a shorter period, e.g. /report 1001 lastWeek."
            case .chooseAnotherDatabase, .restoreDatabase, .upgradeForDatabase, .checkDatabaseDirectory,
                .makeDatabaseWritable,
                .freeDatabaseDisk:
                return "whoever runs the bot must fix it on its machine; /report of dimensions still works meanwhile"
            case .reportUnexpected, .retryThenReport: return "Ask again; if it fails again, tell whoever runs the bot."
            case .fillHistory, .createHistory: return "a sync where the bot runs"
            case .fillHistoryFirst: return "Ask again once whoever runs the bot has filled its history."
            case .alertCheck: return "the alert check"
            case .useTelegram: return "this bot"
            case .giveTelegramToken: return "whoever runs the bot must give it the token on its machine"
            default:
                return
                    "Whoever runs the bot must fix this on its machine (signing in again, its settings or its network)."
            }
        })
}
