import MetrikaAPI
import MetrikaModel
import MetrikaUseCases

/// `metrika annotate`: writes one chart annotation to a counter (the owner's note, shown by chart,
/// alert and explain). The one command that writes to Metrika: it needs the `metrika:write` scope.
enum AnnotateCommand: Command {
    static let name = "annotate"
    static let summary = "Write a chart annotation (a note on a day) to a counter"
    static let synopses: [[UsageTerm]] = [
        [
            .required(.counter), .required(.annotationDate), .optional(.annotationTime), .required(.annotationTitle),
            .optional(.annotationMessage), .optional(.annotationGroup)
        ]
    ]
    static let discussion = """
        The annotation appears on the counter's charts in Metrika and in metrika's own: a marked day on
        chart, a line under an alert and in explain. Writing needs the metrika:write scope, which
        `metrika login --scope write` asks for; a token signed in without it is refused before any
        request (exit 77). --time is the time of day (HH:MM, default the whole day); --group is Metrika's
        colour group, A to E (default A). Characters outside the BMP (emoji) are refused by Metrika.
        The request goes as every other does (by the profile that reads the counter, within the quota
        ledger), once: a failed write is not sent again. The annotation is kept in the history database
        at once, so the next chart, alert or explain shows it.

        Exit codes: 0 written, 64 a wrong option, 77 no write scope or no edit access.

        Examples:
          metrika login --scope write
          metrika annotate --counter 1001 --date 2026-11-29 --title "New site template"
          metrika annotate --counter 1001 --date 2026-12-01 --time 10:00 --title "Sale" --message "-20%" --group B
        """
    static let options: [OptionSpec] =
        [
            CounterOptions.spec(value: "ID", help: "The counter to annotate"),
            Option.annotationDate.spec, Option.annotationTime.spec, Option.annotationTitle.spec,
            Option.annotationMessage.spec, Option.annotationGroup.spec
        ] + TokenOptions.specs

    static func run(_ options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        try options.requireNoPositionals()
        let id = try CounterOptions.one(options)
        let note = try annotation(options)
        // A token file that does not hold the write scope is refused before any request.
        let token = try await session.services.token()
        if let stored = token.stored, !stored.canWrite {
            context.note(
                "Error: writing an annotation needs the metrika:write scope, which the token in \(token.path ?? token.source) lacks: sign in with `metrika login --scope write`"
            )
            return ExitCode.noPermission
        }
        let client = try await session.services.client()
        let (written, unkept) = try await AnnotationText.write(note, counterID: id, client: client) {
            try await session.services.history()
        }
        if let unkept {
            context.note(
                "Warning: the annotation was written but not kept in the history (\(context.naming.reason(unkept))); the next read of the counter's annotations (within the hour) brings it."
            )
        }
        let time = written.time.map { " \($0)" } ?? ""
        context.stdout.write("Annotated counter \(id) on \(written.day.iso)\(time): \"\(written.title)\"\n")
        return ExitCode.ok
    }

    /// The annotation the options describe, or the usage error naming what is wrong.
    static func annotation(_ options: ParsedOptions) throws -> Annotation {
        guard let dateText = options[.annotationDate] else { throw UsageError("annotate needs --date YYYY-MM-DD") }
        guard let day = Day(iso: dateText) else {
            throw UsageError("--date must be a day as YYYY-MM-DD, not '\(dateText)'")
        }
        guard let title = options[.annotationTitle]?.trimmingCharacters(in: .whitespacesAndNewlines), !title.isEmpty
        else { throw UsageError("annotate needs --title TEXT") }
        guard title.count <= 255 else { throw UsageError("--title is \(title.count) characters; Metrika takes 255") }
        var time: String?
        if let text = options[.annotationTime] {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]),
                let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
            else { throw UsageError("--time must be HH:MM, not '\(text)'") }
            time = text == "00:00" ? nil : text
        }
        let group = (options[.annotationGroup] ?? "A").uppercased()
        guard ["A", "B", "C", "D", "E"].contains(group) else {
            throw UsageError("--group must be A, B, C, D or E, not '\(options[.annotationGroup] ?? "")'")
        }
        return Annotation(
            id: 0, day: day, time: time, title: title, message: options[.annotationMessage] ?? "", group: group)
    }
}

extension Option where Value == String? {
    static var annotationDate: Option<String?> {
        .text("date", value: "DATE", help: "The day to annotate (YYYY-MM-DD)")
    }
    static var annotationTime: Option<String?> {
        .text("time", value: "HH:MM", help: "The time of day (default the whole day)")
    }
    static var annotationTitle: Option<String?> {
        .text("title", value: "TEXT", help: "The annotation's title (at most 255 characters)")
    }
    static var annotationMessage: Option<String?> {
        .text("message", value: "TEXT", help: "A longer note under the title")
    }
    static var annotationGroup: Option<String?> {
        .text("group", value: "A-E", help: "Metrika's group (colour) of the annotation (default A)")
    }
}
