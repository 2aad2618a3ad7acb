import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import MetrikaStore
import MetrikaSystem
import MetrikaUseCases

/// `metrika alert --today`: the hourly check (`HourlyCheck`), told as the daily check tells: each
/// piece of news claimed first (overlapping runs tell it once), then stdout lines, the webhook's JSON,
/// the mail; a failed delivery gives the claims back, so the next run tells them again.
extension AlertCommand {
    static func runToday(_ request: Request, settings: AlertSettings, webhook: Webhook?, options: ParsedOptions, session: Session) async throws -> Int32 {
        let context = session.context
        let loader = try await session.historyLoader(offline: request.offline)
        var failures: [(counterID: Int, failure: any MetrikaFailure)] = []
        let counters = try await counters(request.counterIDs, loader: loader, failures: &failures, context: context)
        let check = HourlyCheck(loader: loader, settings: settings, activity: context)
        var outcome = await check.run(counters: counters, explain: !request.counterIDs.isEmpty || options[.verbose])
        outcome.failures = failures + outcome.failures
        for (id, failure) in outcome.failures { context.note("Error: counter \(id): \(failure.message)") }
        if options[.verbose] { context.note("Hourly check: \(outcome.countersChecked) counters, \(outcome.requests) report requests.") }

        if request.dryRun {
            for finding in outcome.findings { context.stdout.write(HourlyText.line(finding) + "\n") }
            try context.stdout.flushChecked()
            return outcome.failures.first?.failure.exitCode ?? ExitCode.ok
        }
        // Claimed before anything is told: of overlapping runs (cron), only the one that claimed an
        // alert prints and delivers it.
        let claims = try check.claim(&outcome)
        let findings = outcome.findings
        let now = context.now()
        let told = try await tell(
            lines: findings.map(HourlyText.line), webhookBody: { HourlyText.webhookBody(findings, forSlack: $0) },
            mail: request.sender.map { sender in { _ in HourlyText.mail(findings, sender: sender, recipients: request.recipients, now: now) } },
            recipients: request.recipients, sendmail: request.sendmail, webhook: webhook, options: options, context: context,
            release: { try check.release(claims) })
        if let told { return told }
        try check.record(outcome)
        return outcome.failures.first?.failure.exitCode ?? ExitCode.ok
    }
}
