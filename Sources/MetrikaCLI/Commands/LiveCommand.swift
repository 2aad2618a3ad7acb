import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaUseCases

/// `metrika live`: today so far, hour by hour, for a person at a terminal — full screen, refreshed
/// every `--every` minutes; without a terminal, one plain snapshot (like `top -b -n 1`). The hours
/// come from `HourlyHistory` through `HourlyLiveSource`, judged by `LiveJudgement`, drawn by
/// `LiveView`; the terminal is `TerminalScreen`'s, the loop `LiveScreenLoop`'s.
enum LiveCommand: Command {
    static let name = "live"
    /// What a too-small terminal's line names as needing the size.
    static let shownBy = "metrika live"
    static let summary = "Today so far, hour by hour, against the same hours of earlier weeks; full screen"
    static let synopses: [[UsageTerm]] = [[.optional(.counter), .optional(.every)]]
    static let discussion = """
        A full-screen view of today in each counter's time zone: visits by hour as bars over the usual
        range of the same hours on the same weekday of the previous 4 weeks, visits so far against
        expected by now ("on track", "−40% since 14:00"), the first goals' reaches, the time of the
        newest data and the requests spent today. Refreshed every --every minutes and on r; each refresh
        costs at most one request per counter (the earlier weeks are kept in the history database).

        Keys: q or Ctrl-C quit (exit 0, a normal end) · r refresh now · Tab, → next counter ·
        Shift-Tab, ← previous · ? keys. SIGTERM, SIGHUP or a SIGINT sent to it end it with 128 + the
        signal. The terminal is left as it was on every exit. NO_COLOR turns colour off.

        Without a terminal (a pipe, cron) it prints one snapshot of each counter as plain text and exits:
          metrika live --counter 1001,1002 | mail -s today me@example.com
        """
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(
                help: "Counter id(s) to show; Tab switches between them (default: the default counter)"),
            Option.every.spec
        ] + DatabaseOptions.specs + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        try options.requireNoPositionals()
        let context = session.context
        let ids = try CounterOptions.ids(options)
        let every = try options[.every] ?? 5
        // Everything that can fail on a wrong command line or a missing sign-in fails here, before
        // the terminal is touched: the usual error line and exit code.
        let loader = try await session.services.historyLoader(offline: false)
        // A counter that cannot be read (unknown, access denied) is named on stderr and sets the exit
        // code; the others still show. Only when none can be read is it the command's error.
        var counters: [Counter] = []
        var unreadable: (id: Int, failure: any MetrikaFailure)?
        for id in ids {
            do {
                counters.append(try await loader.counter(id: id))
            } catch let failure as any MetrikaFailure where ids.count > 1 && !(failure is StoreError) {
                context.note("Error: counter \(id): \(ParameterNaming.cli.message(of: failure))")
                if unreadable == nil { unreadable = (id, failure) }
            }
        }
        guard !counters.isEmpty else { return unreadable?.failure.exitCode ?? ExitCode.failure }
        let interactive = context.stdoutIsTerminal && TerminalScreen.isInteractive()
        // The goals list is read now, before the screen: a warning about it is a line like any other.
        let source = try await HourlyLiveSource.make(counters: counters, loader: loader, activity: context)
        let board = LiveBoard(
            counters: counters, source: source, activity: interactive ? QuietActivity(now: context.now) : context)
        guard interactive else {
            let code = try await snapshot(board, context: context)
            return code == ExitCode.ok ? unreadable?.failure.exitCode ?? code : code
        }
        let colour = (context.environment["NO_COLOR"] ?? "").isEmpty && context.environment["TERM"] != "dumb"
        let loop = LiveScreenLoop(
            board: board, screen: TerminalScreen(output: context.stdout), every: every, colour: colour, context: context
        )
        let code = try await loop.run()
        // The unreadable counter's line was drawn over by the screen: said again once it is gone.
        if let unreadable {
            context.note("Error: counter \(unreadable.id): \(ParameterNaming.cli.message(of: unreadable.failure))")
        }
        return code == ExitCode.ok ? unreadable?.failure.exitCode ?? code : code
    }

    /// One refresh of every counter as plain text on stdout, a blank line between counters; a
    /// counter that fails is an `Error:` line on stderr and its exit code, the others still print.
    static func snapshot(_ board: LiveBoard, context: CLIContext) async throws -> Int32 {
        let outcomes = try await board.refresh()
        var code = ExitCode.ok
        var first = true
        let width = max(LiveView.minimumWidth, min(120, context.terminalWidth ?? 80))
        for outcome in outcomes {
            switch outcome {
            case .snapshot(let snapshot):
                if !first { context.stdout.write("\n") }
                first = false
                let view = LiveView(width: width, height: LiveView.snapshotHeight, colour: false, shownBy: Self.shownBy)
                context.stdout.write(view.render(snapshot) + "\n")
            case .failed(let counter, let failure):
                context.note("Error: counter \(counter.id): \(ParameterNaming.cli.message(of: failure))")
                if code == ExitCode.ok { code = failure.exitCode }
            }
        }
        return code
    }

    /// The full screen's activity: notes and progress would write over the screen, so they are dropped
    /// (a refresh that fails says so on the screen itself).
    struct QuietActivity: Activity {
        let now: @Sendable () -> Date
        var naming: ParameterNaming { .cli }
        func note(_ line: String) {}
        func progress(_ text: String, force: Bool) {}
        func endProgress() {}
    }
}

extension Option where Value == Int? {
    /// `--every MINUTES` of live.
    static var every: Option<Int?> {
        .integer(
            "every", value: "MINUTES", help: "Refresh every this many minutes (default 5, at least 1)", in: 1...1_440)
    }
}
