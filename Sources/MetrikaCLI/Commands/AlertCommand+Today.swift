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
        let loader = try session.historyLoader(offline: request.offline)
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
        for finding in outcome.findings { context.stdout.write(HourlyText.line(finding) + "\n") }
        do {
            try context.stdout.flushChecked()
        } catch {
            try? check.release(claims)
            throw error
        }

        var deliveryFailure: (any MetrikaFailure)?
        if !outcome.findings.isEmpty {
            if let webhook {
                do {
                    try await webhook.send(HourlyText.webhookBody(outcome.findings, forSlack: webhook.isSlack))
                } catch let failure as any MetrikaFailure {
                    context.note("Error: \(failure.message)")
                    deliveryFailure = failure
                }
            }
            if let sender = request.sender, !request.recipients.isEmpty {
                do {
                    let message = HourlyText.mail(outcome.findings, sender: sender, recipients: request.recipients, now: context.now())
                    try MailDelivery.deliver(message.bytes(), sendmail: request.sendmail, environment: childEnvironment(context.environment, hiding: webhook))
                    if context.stderrIsTerminal || options[.verbose] { context.note("Mailed \(request.recipients.map(\.address).joined(separator: ", ")): \(message.messageID)") }
                } catch let failure as any MetrikaFailure {
                    context.note("Error: \(failure.message); the alerts will be told again on the next run")
                    deliveryFailure = deliveryFailure ?? failure
                }
            }
        }
        if let deliveryFailure {
            try check.release(claims)
            return deliveryFailure.exitCode
        }
        try check.record(outcome)
        return outcome.failures.first?.failure.exitCode ?? ExitCode.ok
    }
}
