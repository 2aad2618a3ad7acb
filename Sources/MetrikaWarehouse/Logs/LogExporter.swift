import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaStore

/// Runs one `metrika logs` export: evaluate → (split) → create or reuse → poll → download every part
/// into the destination → clean.
///
/// Cleaning: a request that finished loading is cleaned at once (the 10 GB per-counter quota is the
/// user's). A request still being prepared when the run fails is cancelled. A processed request whose
/// parts were partly loaded is kept when progress is recorded, so that the re-run loads only the
/// missing parts; without a progress store it is cleaned too.
///
/// Parts are downloaded through the client (its streaming transport, the run's current token) and a
/// part that fails transiently is fetched again under the client's retry policy, after the
/// destination has taken back what the failed attempt wrote (`LogDestination.discardPart`).
package struct LogExporter: Sendable {
    package var client: MetrikaClient
    package var destination: any LogDestination
    package var destinationKey: String
    package var counterID: Int
    package var source: LogSource
    package var fields: [String]
    package var store: (any LogProgressStore)?
    /// First wait between info polls, in seconds; each next wait is 1.5× longer, at most 5 minutes.
    package var firstPollInterval: Double
    /// Info polls before giving up (bounded: a request never processed must not poll forever).
    package var maxPolls: Int
    package var sleep: @Sendable (Double) async throws -> Void
    /// Progress lines (a terminal only): replaced in place by the caller.
    package var progress: (@Sendable (String) -> Void)?
    /// Notes for stderr (always shown).
    package var note: @Sendable (String) -> Void
    /// Told the id of each log request the run orders or resumes (for a note if it is interrupted).
    package var onRequest: (@Sendable (Int) -> Void)?
    /// How the notes name the command that cleans log requests (the entry point's words).
    package var naming = ParameterNaming.neutral

    package init(
        client: MetrikaClient, destination: any LogDestination, destinationKey: String,
        counterID: Int, source: LogSource, fields: [String], store: (any LogProgressStore)?,
        firstPollInterval: Double = 10,
        maxPolls: Int = 500, sleep: @escaping @Sendable (Double) async throws -> Void,
        progress: (@Sendable (String) -> Void)?, note: @escaping @Sendable (String) -> Void
    ) {
        self.client = client
        self.destination = destination
        self.destinationKey = destinationKey
        self.counterID = counterID
        self.source = source
        self.fields = fields
        self.store = store
        self.firstPollInterval = firstPollInterval
        self.maxPolls = maxPolls
        self.sleep = sleep
        self.progress = progress
        self.note = note
    }

    /// What a run did.
    package struct Summary: Sendable {
        package var requests = 0
        package var reused = 0
        package var parts = 0
        package var bytes = 0

        package init() {}
    }

    /// The date ranges one request each: the whole range when evaluate says it is possible, else
    /// pieces of `max_possible_day_quantity` days.
    package func plan(_ range: DateRange) async throws -> [DateRange] {
        let evaluation = try await client.evaluateLogRequest(
            counter: counterID, source: source, from: range.from, to: range.to, fields: fields)
        if evaluation.possible {
            return [range]
        }
        let step = evaluation.maxPossibleDayQuantity
        guard step >= 1 else {
            throw LogExportError.noRoom(counterID: counterID, maxDays: step)
        }
        var pieces: [DateRange] = []
        var start = range.from
        while start <= range.to {
            let end = min(range.to, Day(ordinal: start.ordinal + step - 1))
            pieces.append(DateRange(from: start, to: end)!)
            start = Day(ordinal: end.ordinal + 1)
        }
        if pieces.count > 1 {
            note("Note: the Logs API takes at most \(step) days per request now; ordering \(pieces.count) requests.")
        }
        return pieces
    }

    package func run(_ range: DateRange) async throws -> Summary {
        var summary = Summary()
        do {
            for piece in try await plan(range) {
                try await export(piece, summary: &summary)
            }
            try await destination.finish()
        } catch {
            destination.abandon()
            throw error
        }
        return summary
    }

    private func export(_ range: DateRange, summary: inout Summary) async throws {
        let fieldList = fields.joined(separator: ",")
        var job: LogJob
        var request: LogRequest?
        if let saved = try await store?.job(
            counterID: counterID, source: source, from: range.from, to: range.to, fields: fieldList,
            destination: destinationKey)
        {
            // Reuse it only if the API still has it (it may have been cleaned or have failed).
            let known = try? await client.logRequest(counter: counterID, id: saved.requestID)
            if let known, !known.hasFailed {
                job = saved
                request = known
                summary.reused += 1
                note(
                    "Note: resuming log request \(saved.requestID) (\(saved.loadedParts.count) part\(saved.loadedParts.count == 1 ? "" : "s") already loaded)."
                )
            } else {
                try await store?.removeJob(requestID: saved.requestID)
                job = try await order(range, fields: fieldList, summary: &summary)
            }
        } else {
            job = try await order(range, fields: fieldList, summary: &summary)
        }
        let id = job.requestID
        onRequest?(id)
        do {
            let processed = try await waitUntilProcessed(id, known: request)
            let parts = (processed.parts ?? []).map(\.partNumber).sorted()
            if try await !destination.beginRange(from: range.from, to: range.to, resuming: !job.loadedParts.isEmpty) {
                job.loadedParts = []
            }
            guard !parts.isEmpty else {
                throw LogExportError.noParts(request: id)
            }
            for part in parts where !job.loadedParts.contains(part) {
                let bytes = try await load(
                    part: part, of: parts.count, request: id, range: range, loadedBefore: summary.bytes)
                summary.bytes += bytes
                summary.parts += 1
                job.loadedParts.insert(part)
                try await store?.markLoaded(requestID: id, part: part)
            }
            try await destination.commitRange(from: range.from, to: range.to, parts: parts.count)
            if destination.remembersLoadedDays {
                // Rows that cannot be counted stay unknown in --list; the load itself stands.
                let rows = try? await destination.rowsPerDay(from: range.from, to: range.to)
                try await store?.recordLoaded(
                    counterID: counterID, source: source, destination: destinationKey, from: range.from, to: range.to,
                    rows: rows, at: Date())
            }
        } catch {
            await cleanAfterFailure(id)
            throw error
        }
        // Done: free the quota. A failed clean is a warning, not a failed export: the rows are in.
        do {
            _ = try await client.finishLogRequest(counter: counterID, id: id, cancel: false)
        } catch {
            note(
                "Warning: log request \(id) could not be cleaned (\(naming.reason(error))); run `\(naming.action(.cleanLogs(counterID: counterID)))`."
            )
        }
        await forget(id)
    }

    /// Streams one part into the destination; a transient failure is retried (its rows taken back
    /// first) under the client's retry policy. Returns the bytes of the attempt that succeeded.
    private func load(part: Int, of count: Int, request id: Int, range: DateRange, loadedBefore: Int) async throws
        -> Int
    {
        try await client.retryingTransient {
            var bytes = 0
            do {
                try await destination.load(part: part, of: count, from: range.from, to: range.to) { write in
                    try await client.downloadLogPart(counter: counterID, id: id, part: part, of: count) { chunk in
                        bytes += chunk.count
                        try await write(chunk)
                        if let progress {
                            progress(
                                "log request \(id): \(LogExporter.partName(part, of: count)), \(ByteSize.megabytes(loadedBefore + bytes)) MB"
                            )
                        }
                    }
                }
            } catch let transient as TransientFailure {
                // Retried only when what this attempt wrote can be taken back.
                guard await destination.discardPart(part: part, from: range.from, to: range.to) else {
                    throw transient.failure
                }
                throw transient
            } catch let failure as APIError {
                _ = await destination.discardPart(part: part, from: range.from, to: range.to)
                throw failure
            } catch let problem as LogRowProblem {
                // A row that cannot be loaded is never skipped: the run stops naming it.
                _ = await destination.discardPart(part: part, from: range.from, to: range.to)
                throw LogExportError.badRow(problem, request: id, part: part + 1, of: count)
            }
            return bytes
        }
    }

    private func order(_ range: DateRange, fields: String, summary: inout Summary) async throws -> LogJob {
        let created = try await client.createLogRequest(
            counter: counterID, source: source, from: range.from, to: range.to, fields: self.fields)
        summary.requests += 1
        let job = LogJob(
            counterID: counterID, source: source, from: range.from, to: range.to, fields: fields,
            destination: destinationKey, requestID: created.requestID)
        try await store?.saveJob(job)
        return job
    }

    private func waitUntilProcessed(_ id: Int, known: LogRequest?) async throws -> LogRequest {
        if let known, known.status == "processed" { return known }
        var interval = firstPollInterval
        for poll in 1...max(1, maxPolls) {
            let info = try await client.logRequest(counter: counterID, id: id)
            switch info.status {
            case "processed":
                return info
            case "created", "awaiting_retry":
                progress?("log request \(id): \(info.status), poll \(poll); next in \(Int(interval.rounded())) s")
                try await sleep(interval)
                interval = min(300, interval * 1.5)
            default:
                await forget(id)
                throw LogExportError.requestEnded(request: id, status: TerminalText.quote(info.status))
            }
        }
        throw LogExportError.notProcessed(request: id, polls: maxPolls)
    }

    /// After a failure: cancel a request still being prepared; clean a processed one unless a store
    /// keeps it for the re-run.
    private func cleanAfterFailure(_ id: Int) async {
        guard let info = try? await client.logRequest(counter: counterID, id: id) else { return }
        if info.status == "created" {
            _ = try? await client.finishLogRequest(counter: counterID, id: id, cancel: true)
            await forget(id)
        } else if info.status == "processed" {
            if store != nil {
                note(
                    "Note: log request \(id) is kept so that a re-run with the same arguments resumes it; `\(naming.action(.cleanLogs(counterID: counterID)))` frees it."
                )
            } else {
                _ = try? await client.finishLogRequest(counter: counterID, id: id, cancel: false)
            }
        }
    }

    /// The request is done with (cleaned, cancelled or failed): its progress is forgotten. A history
    /// database that cannot forget it is said, never passed over; the run's outcome stands (a re-run
    /// finds the request gone and orders a new log).
    private func forget(_ id: Int) async {
        do {
            try await store?.removeJob(requestID: id)
        } catch {
            note(
                "Warning: the history database could not forget log request \(id) (\(naming.reason(error))); a re-run with the same arguments orders a new log."
            )
        }
    }

    /// `part 1 of 2` for the API's part 0 of two: the one numbering of parts in progress lines and
    /// errors alike (the API counts from 0, people from 1).
    package static func partName(_ part: Int, of count: Int) -> String {
        "part \(part + 1) of \(count)"
    }
}
