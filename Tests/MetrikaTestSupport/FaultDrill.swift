// Test builds only: a plain `swift build` (release included) builds every target but has no Testing.
#if canImport(Testing)
    import Foundation
    import Testing

    /// One fault drill: a fault the simulator injects, and what metrika must do about it.
    package struct FaultDrill: Sendable, CustomTestStringConvertible {
        /// What the run must end in.
        package enum Outcome: Sendable {
            /// Exit 0 after bounded retries, with complete data.
            case recovers
            /// A documented exit code and one `Error:` line containing `says`.
            case fails(Int32, says: String)
        }

        package var name: String
        package var kind: String
        package var count: Int
        package var errorType: String? = nil
        package var status: Int? = nil
        package var delayMilliseconds: Int? = nil
        /// Requests to the faulted endpoint, retries included.
        package var requests: Int
        package var counters: Outcome
        package var report: Outcome

        package init(
            name: String, kind: String, count: Int, errorType: String? = nil, status: Int? = nil,
            delayMilliseconds: Int? = nil,
            requests: Int, counters: Outcome, report: Outcome
        ) {
            self.name = name
            self.kind = kind
            self.count = count
            self.errorType = errorType
            self.status = status
            self.delayMilliseconds = delayMilliseconds
            self.requests = requests
            self.counters = counters
            self.report = report
        }

        package var testDescription: String { name }

        package func spec(pathPrefix: String?) -> [String: Any] {
            var spec: [String: Any] = ["kind": kind, "count": count]
            if let errorType { spec["error_type"] = errorType }
            if let status { spec["status"] = status }
            if let delayMilliseconds { spec["delay_ms"] = delayMilliseconds }
            if let pathPrefix { spec["path_prefix"] = pathPrefix }
            return spec
        }

        package static let slow = 4_000
        package static let unreadable = "The API answered something unreadable"
        package static let unavailable = "The Metrika API is unavailable"
        package static let quota = "request quota is exceeded"

        /// The list, each transient fault twice: once recovering (fewer faults than the 5
        /// attempts) and once persisting (more faults than attempts).
        package static let all: [FaultDrill] = [
            FaultDrill(
                name: "429 per-IP, 2 times", kind: "quota", count: 2, requests: 3, counters: .recovers,
                report: .recovers),
            FaultDrill(
                name: "429 per-IP, persisting", kind: "quota", count: 9, requests: 5, counters: .fails(75, says: quota),
                report: .fails(75, says: quota)),
            FaultDrill(
                name: "429 parallel, 2 times", kind: "quota", count: 2, errorType: "quota_parallel_requests",
                requests: 3, counters: .recovers, report: .recovers),
            FaultDrill(
                name: "429 parallel, persisting", kind: "quota", count: 9, errorType: "quota_parallel_requests",
                requests: 5, counters: .fails(75, says: "quota_parallel_requests"),
                report: .fails(75, says: "quota_parallel_requests")),
            FaultDrill(
                name: "429 daily per user", kind: "quota", count: 9, errorType: "quota_requests_by_uid", requests: 1,
                counters: .fails(75, says: "00:00 GMT"), report: .fails(75, says: "00:00 GMT")),
            FaultDrill(
                name: "429 daily per counter", kind: "quota", count: 9, errorType: "quota_requests_by_counter_id",
                requests: 1, counters: .fails(75, says: "00:00 GMT"), report: .fails(75, says: "00:00 GMT")),
            FaultDrill(
                name: "420, 2 times", kind: "quota", count: 2, status: 420, requests: 3, counters: .recovers,
                report: .recovers),
            FaultDrill(
                name: "420, persisting", kind: "quota", count: 9, status: 420, requests: 5,
                counters: .fails(75, says: quota), report: .fails(75, says: quota)),
            FaultDrill(
                name: "503 backend_error, 3 times", kind: "backend_error", count: 3, requests: 4, counters: .recovers,
                report: .recovers),
            FaultDrill(
                name: "503 backend_error, persisting", kind: "backend_error", count: 9, requests: 5,
                counters: .fails(69, says: "HTTP 503 backend_error, 5 attempts"),
                report: .fails(69, says: "HTTP 503 backend_error, 5 attempts")),
            FaultDrill(
                name: "504 timeout, 4 times", kind: "timeout", count: 4, requests: 5, counters: .recovers,
                report: .recovers),
            FaultDrill(
                name: "504 timeout, persisting", kind: "timeout", count: 9, requests: 5,
                counters: .fails(69, says: "HTTP 504 timeout"), report: .fails(69, says: "HTTP 504 timeout")),
            FaultDrill(
                name: "slower than the timeout, once", kind: "delay", count: 1, delayMilliseconds: slow, requests: 2,
                counters: .recovers, report: .recovers),
            FaultDrill(
                name: "slower than the timeout, persisting", kind: "delay", count: 9, delayMilliseconds: slow,
                requests: 5, counters: .fails(69, says: "no answer within the request timeout"),
                report: .fails(69, says: "no answer within the request timeout")),
            FaultDrill(
                name: "connection cut mid-body, once", kind: "cut", count: 1, requests: 2, counters: .recovers,
                report: .recovers),
            FaultDrill(
                name: "connection cut mid-body, persisting", kind: "cut", count: 9, requests: 5,
                counters: .fails(69, says: unavailable), report: .fails(69, says: unavailable)),
            FaultDrill(
                name: "HTML 502, once", kind: "html502", count: 1, requests: 2, counters: .recovers, report: .recovers),
            FaultDrill(
                name: "HTML 502, persisting", kind: "html502", count: 9, requests: 5,
                counters: .fails(69, says: "not JSON: a proxy or gateway answered"),
                report: .fails(69, says: "not JSON: a proxy or gateway answered")),
            FaultDrill(
                name: "empty 200", kind: "empty200", count: 1, requests: 1, counters: .fails(65, says: "an empty body"),
                report: .fails(65, says: "an empty body")),
            FaultDrill(
                name: "malformed JSON", kind: "malformed_json", count: 1, requests: 1,
                counters: .fails(65, says: "not valid JSON"), report: .fails(65, says: "not valid JSON")),
            FaultDrill(
                name: "wrong JSON types", kind: "wrong_types", count: 1, requests: 1,
                counters: .fails(65, says: "wrong type"), report: .fails(65, says: "wrong type")),
            // Counter ids of 1e308 are no ids (65); metric values of 1e308 (a 300-digit visit count, a
            // bounce rate of 1.2e29 %) are no values: refused as unreadable, never shown or stored
            // (issue 24 item 10).
            FaultDrill(
                name: "huge numbers", kind: "huge_numbers", count: 1, requests: 1,
                counters: .fails(65, says: "counters[0].id"), report: .fails(65, says: "cannot be (a ")),
            FaultDrill(
                name: "NaN/Infinity strings", kind: "nan_strings", count: 1, requests: 1,
                counters: .fails(65, says: unreadable), report: .fails(65, says: "'NaN', not a number")),
            // Bad bytes in a name become U+FFFD; in the report they land in the date, which is then no date.
            FaultDrill(
                name: "non-UTF-8 bytes in names", kind: "non_utf8", count: 1, requests: 1, counters: .recovers,
                report: .fails(65, says: "a row of the daily report has the date"))
        ]
    }

    extension FaultDrill {
        /// The few drills that also run against the built binary (EndToEndTests), with the production
        /// retry policy and its real waits scaled down by `METRIKA_TEST_RETRY_SCALE`: a recovery after
        /// retries, a persisting fault that uses every attempt, a real request timeout, a fault that is
        /// never retried, and bytes that only the real process's output path sees. The whole matrix runs
        /// in-process (MetrikaCLITests), where retry waits are recorded, not slept.
        package static let endToEnd: [FaultDrill] = all.filter {
            [
                "503 backend_error, 3 times", "504 timeout, persisting", "slower than the timeout, once",
                "429 daily per user", "non-UTF-8 bytes in names"
            ].contains($0.name)
        }

        /// What `counters --csv` printed under the drill: a run that recovers prints what a clean run
        /// prints (the non-UTF-8 drill: its first name's four bad bytes FF FE C3 28 as three U+FFFD and
        /// "(", and as many lines).
        package func expectCountersOutput(
            _ stdout: String, clean: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            guard case .recovers = counters else { return }
            if kind == "non_utf8" {
                #expect(
                    stdout.contains("\u{FFFD}\u{FFFD}\u{FFFD}("), "\(stdout.prefix(300))",
                    sourceLocation: sourceLocation)
                #expect(Self.lineCount(stdout) == Self.lineCount(clean), sourceLocation: sourceLocation)
            } else {
                #expect(stdout == clean, sourceLocation: sourceLocation)
            }
        }

        /// What the report printed under the drill: a run that recovers prints the clean report; the
        /// huge numbers drill shows nothing of the answer (no 300-digit count, no 1.2e29 %).
        package func expectReportOutput(
            _ stdout: String, stderr: String, baseline: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            if case .recovers = report { #expect(stdout == baseline, "\(name)", sourceLocation: sourceLocation) }
            if kind == "huge_numbers" {
                #expect(stdout.isEmpty, "\(stdout.prefix(300))", sourceLocation: sourceLocation)
                #expect(!stderr.contains("123456789012345678901234567890"), "\(stderr)", sourceLocation: sourceLocation)
            }
        }

        private static func lineCount(_ text: String) -> Int {
            text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).count
        }

        /// What every run must satisfy, whatever the fault: no crash, no token, bounded time (`seconds`:
        /// what the run took, its waits included), and the outcome's exit status and one `Error:` line.
        package func expectSane(
            _ outcome: Outcome, status: Int32, stdout: String, stderr: String, signaled: Bool, token: String,
            seconds: Double,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let drill = self
            #expect(!signaled, "\(drill.name): killed by a signal", sourceLocation: sourceLocation)
            for marker in ["Fatal error", "Precondition failed", "Program crashed", "Backtrac", "Thread 0"] {
                #expect(
                    !stderr.contains(marker), "\(drill.name): \(marker) in \(stderr.prefix(300))",
                    sourceLocation: sourceLocation)
            }
            #expect(
                !stdout.contains(token) && !stderr.contains(token), "\(drill.name): the token leaked",
                sourceLocation: sourceLocation)
            // Five attempts of at most 2 s, plus at most 30 s of backoff: bounded, whatever happens.
            #expect(seconds < 45, "\(drill.name): took \(seconds) s", sourceLocation: sourceLocation)
            switch outcome {
            case .recovers:
                #expect(status == 0, "\(drill.name): \(stderr)", sourceLocation: sourceLocation)
                #expect(!stderr.contains("Error"), "\(drill.name): \(stderr)", sourceLocation: sourceLocation)
            case .fails(let code, let says):
                #expect(status == code, "\(drill.name): \(stderr)", sourceLocation: sourceLocation)
                #expect(stdout.isEmpty, "\(drill.name): \(stdout.prefix(200))", sourceLocation: sourceLocation)
                let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                #expect(
                    lines.count == 1 && stderr.hasPrefix("Error: ") && stderr.hasSuffix("\n"),
                    "\(drill.name): \(stderr)", sourceLocation: sourceLocation)
                #expect(stderr.contains(says), "\(drill.name): \(stderr)", sourceLocation: sourceLocation)
            }
        }
    }
#endif
