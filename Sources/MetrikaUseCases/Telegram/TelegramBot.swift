import Foundation
import MetrikaAPI
import MetrikaModel
import MetrikaRender
import Synchronization

/// A Telegram bot's calls to the Bot API (`https://api.telegram.org/bot<token>/<method>`,
/// core.telegram.org/bots/api#making-requests), over the API's transport seam and its hostile-server
/// rules: no redirect followed, a total timeout, a capped answer, JSON nesting bounded.
///
/// - The token is in every URL, so no URL is ever shown: errors and notes name only the method, and
///   every text from the server or the transport is masked before it is kept.
/// - 429 `retry_after`: nothing more is sent until that many seconds have passed (through the injected
///   `sleep`, no less), then the call is sent again; a wait longer than `maxRetryAfter` is an error.
/// - 5xx, timeouts and broken connections are retried under `retry` (backoff with jitter).
/// - 400 with `migrate_to_chat_id` (a group became a supergroup): the call goes to the new id, every
///   later one too, and `note` says so once per chat.
/// - Paced as Telegram asks (core.telegram.org/bots/faq), with a margin for the Bot API's clock
///   (`TelegramPace`): to one chat at most one message a second and never more than
///   `perChatPerMinute` in 63 s; at most 25 a second overall — on the injected clock. A wait, a
///   429's too, ends at once when delivery is asked to stop (`DeliveryStop`).
package final class TelegramBot: Sendable {
    /// The Bot API's address unless METRIKA_TELEGRAM_API_URL says otherwise.
    package static let defaultBaseURL = URL(string: "https://api.telegram.org")!
    /// Messages to one chat within any 63 s (Telegram's limit is 20 in 60 s: 2 and 3 s of margin).
    package static let perChatPerMinute = 18
    /// The pace of messages (`TelegramPace.telegram`, unless a test or the bench asks another).
    package let pace: TelegramPace
    /// The most of one answer read: 100 updates of long texts stay far below it.
    package static let maxResponseBytes = 4 << 20
    /// Waits for 429s that one call accepts before it gives up.
    static let maxFloodWaits = 5

    private let token: String
    private let baseURL: URL
    private let transport: any HTTPTransport
    /// Seconds one request may take (a long poll gets its `timeout` on top).
    package let timeout: Double
    private let retry: RetryPolicy
    /// The longest `retry_after` waited for; longer is `TelegramError.tooManyRequests`.
    package let maxRetryAfter: Double
    private let sleep: @Sendable (Double) async throws -> Void
    private let now: @Sendable () -> Date
    private let random: @Sendable () -> Double
    private let note: @Sendable (String) -> Void

    private struct State {
        /// When each chat's recent messages went (or will go), oldest first.
        var sends: [TelegramChatID: [Date]] = [:]
        /// When the recent messages to any chat went (or will go), oldest first.
        var allSends: [Date] = []
        /// No call goes out before this (a 429's `retry_after`).
        var quietUntil: Date?
        /// Groups that became supergroups: old id → new id.
        var migrations: [TelegramChatID: TelegramChatID] = [:]
    }

    private let state = Mutex(State())

    /// Checks the token's shape (`TelegramError.malformedToken` naming `tokenSource`, never the token) and
    /// the base URL (plain http only to this machine, `PlainHTTPPolicy`: `ConfigError`, exit 78).
    package init(
        token: String, tokenSource: String = "METRIKA_TELEGRAM_TOKEN", baseURL: URL = TelegramBot.defaultBaseURL,
        transport: any HTTPTransport, environment: [String: String] = [:], timeout: Double = 30,
        retry: RetryPolicy = .standard,
        maxRetryAfter: Double = 300, pace: TelegramPace = .telegram,
        sleep: @escaping @Sendable (Double) async throws -> Void = {
            try await Task.sleep(nanoseconds: UInt64(max(0, $0) * 1e9))
        },
        now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        note: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.isWellFormed(token: trimmed) else { throw TelegramError.malformedToken(source: tokenSource) }
        try PlainHTTPPolicy.check(
            baseURL, setting: "METRIKA_TELEGRAM_API_URL", secret: "the Telegram bot token", environment: environment)
        self.token = trimmed
        self.baseURL = baseURL
        self.transport = transport
        self.timeout = timeout
        self.retry = retry
        self.maxRetryAfter = maxRetryAfter
        self.pace = TelegramPace.testScale(environment, baseURL: baseURL).map { pace.scaled(by: $0) } ?? pace
        self.sleep = sleep
        self.now = now
        self.random = random
        self.note = note
    }

    /// `<digits>:<letters, digits, _ and ->`, as @BotFather issues them: nothing that could change a URL's path.
    package static func isWellFormed(token: String) -> Bool {
        let parts = token.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, (1...20).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && $0.isNumber })
        else { return false }
        return (20...100).contains(parts[1].count)
            && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    /// The bot's id: the number before the token's colon (not a secret: `getMe` answers it). The
    /// outbox knows its messages' bot by it.
    package var botID: String { String(token.prefix { $0 != ":" }) }

    /// What must never be shown: the token, its secret half, and the path that carries it.
    package var secrets: [String] {
        var parts = ["bot" + token, token]
        if let colon = token.firstIndex(of: ":") { parts.append(String(token[token.index(after: colon)...])) }
        return parts
    }

    /// Groups found to have become supergroups in this run: old id → new id (to keep in the settings).
    package var migrations: [TelegramChatID: TelegramChatID] { state.withLock { $0.migrations } }

    // MARK: - Methods

    /// `getMe`: checks the token; the bot's identity.
    package func getMe() async throws -> TelegramBotIdentity {
        try await call("getMe", chat: nil) { _ in .json(.object([])) }
    }

    /// Sends `html` (Telegram's HTML parse mode: text from Metrika escaped by `TelegramHTML.escape`) to
    /// `chat`, split between lines into messages of at most 4,096 characters; the ids of the messages
    /// sent, in order. Link previews are off.
    @discardableResult
    package func sendText(_ html: String, to chat: TelegramChatID, silent: Bool = false) async throws -> [Int64] {
        var ids: [Int64] = []
        for part in TelegramHTML.split(html) {
            let sent: TelegramSentMessage = try await call("sendMessage", chat: chat) { target in
                .json(
                    .object([
                        ("chat_id", .string(target.value)), ("disable_notification", .bool(silent)),
                        ("link_preview_options", .object([("is_disabled", .bool(true))])),
                        ("parse_mode", .string("HTML")), ("text", .string(part))
                    ]))
            }
            ids.append(sent.messageID)
        }
        return ids
    }

    /// Sends a PNG (or JPEG) by multipart `sendPhoto` with `caption` (HTML); a caption past 1,024
    /// characters keeps its first lines and the rest follows as text. The photo's message id.
    @discardableResult
    package func sendPhoto(_ image: Data, fileName: String, caption: String = "", to chat: TelegramChatID) async throws
        -> Int64
    {
        try await sendFile(
            "sendPhoto", field: "photo", image, fileName: fileName, contentType: "image/png", caption: caption, to: chat
        )
    }

    /// Sends any file (an SVG chart, a CSV) by multipart `sendDocument`, captioned as `sendPhoto` is.
    @discardableResult
    package func sendDocument(
        _ data: Data, fileName: String, contentType: String, caption: String = "", to chat: TelegramChatID
    ) async throws -> Int64 {
        try await sendFile(
            "sendDocument", field: "document", data, fileName: fileName, contentType: contentType, caption: caption,
            to: chat)
    }

    /// `getUpdates`: what arrived after `offset` (the last update's id + 1 confirms everything before
    /// it), waiting up to `timeout` seconds for something to arrive (long polling); messages only.
    package func getUpdates(offset: Int64?, timeout pollSeconds: Int, limit: Int = 100) async throws -> [TelegramUpdate]
    {
        try await call("getUpdates", chat: nil, extraTime: Double(max(0, pollSeconds))) { _ in
            // An update id is far below 2^53: exact as a JSON number.
            let offset: [(String, JSONValue)] = offset.map { [("offset", .number(Double($0)))] } ?? []
            return .json(
                .object(
                    [
                        ("allowed_updates", .array([.string("message")])),
                        ("limit", .number(Double(min(100, max(1, limit)))))
                    ]
                        + offset + [("timeout", .number(Double(max(0, pollSeconds))))]))
        }
    }

    /// `setMyCommands`: the menu of commands the chat shows.
    package func setMyCommands(_ commands: [TelegramBotCommand]) async throws {
        let list = commands.map {
            JSONValue.object([("command", .string($0.command)), ("description", .string($0.description))])
        }
        let _: Bool = try await call("setMyCommands", chat: nil) { _ in .json(.object([("commands", .array(list))])) }
    }

    /// `deleteWebhook`: getUpdates answers 409 while a webhook is set.
    package func deleteWebhook() async throws {
        let _: Bool = try await call("deleteWebhook", chat: nil) { _ in
            .json(.object([("drop_pending_updates", .bool(false))]))
        }
    }

    private func sendFile(
        _ method: String, field: String, _ bytes: Data, fileName: String, contentType: String, caption: String,
        to chat: TelegramChatID
    ) async throws -> Int64 {
        let captions = caption.isEmpty ? [] : TelegramHTML.split(caption, limit: TelegramHTML.captionLimit)
        let sent: TelegramSentMessage = try await call(method, chat: chat) { target in
            var form = TelegramMultipartBody()
            form.field("chat_id", target.value)
            if let first = captions.first {
                form.field("caption", first)
                form.field("parse_mode", "HTML")
            }
            form.file(field, fileName: fileName, contentType: contentType, bytes: bytes)
            return .multipart(form)
        }
        let rest = captions.dropFirst().joined(separator: "\n")
        if !rest.isEmpty { try await sendText(rest, to: chat) }
        return sent.messageID
    }

    // MARK: - One call

    enum Body {
        /// Written by the one JSON writer, members in the order given (sorted by name here, as the
        /// bodies always were). Not Foundation's `.sortedKeys`: it sorts with a locale's
        /// collation, which loads ICU's locale and collation data into the bot at its first call
        /// (about 3 MiB of the resident set, bench/bot).
        case json(JSONValue)
        case multipart(TelegramMultipartBody)
    }

    /// Sends `method` until it is answered, following the rules above; `body` builds the request for
    /// the chat it goes to (a migration changes it). `extraTime` is a long poll's wait.
    private func call<Result: Decodable>(
        _ method: String, chat: TelegramChatID?, extraTime: Double = 0, body: (TelegramChatID) throws -> Body
    ) async throws -> Result {
        var target = chat
        if let chat, let moved = state.withLock({ $0.migrations[chat] }) { target = moved }
        var failures = 0
        var floodWaits = 0
        var waited = 0.0
        while true {
            let slot = try await waitForTurn(target)
            let request = try self.request(method, body: try body(target ?? TelegramChatID(0)), extraTime: extraTime)
            let outcome = await exchange(method, request)
            // A message Telegram did not take (5xx, a timeout, 429) takes no place in the pace.
            switch outcome {
            case .transient, .flood: unreserve(slot, target)
            default: break
            }
            switch outcome {
            case .answer(let result):
                return try decodeResult(method, result)
            case .transient(let error):
                failures += 1
                let delay = retry.delay(beforeRetry: failures, random: random())
                guard failures < retry.maxAttempts, waited + delay <= retry.maxTotalWait else { throw error }
                waited += delay
                try await DeliveryStop.wait(delay, sleep: sleep)
            case .flood(let seconds, let error):
                floodWaits += 1
                guard seconds <= maxRetryAfter, floodWaits <= Self.maxFloodWaits else { throw error }
                let until = now().addingTimeInterval(seconds)
                state.withLock { s in s.quietUntil = max(s.quietUntil ?? until, until) }
            case .migrated(let newID, let error):
                guard let old = target, old != newID else { throw error }
                let first = state.withLock { s -> Bool in
                    let first = s.migrations[old] == nil
                    s.migrations[old] = newID
                    if let original = chat { s.migrations[original] = newID }
                    return first
                }
                if first {
                    note(
                        "Telegram chat \(old) became a supergroup with the id \(newID): sent there; use \(newID) from now on."
                    )
                }
                target = newID
            case .failed(let error):
                throw error
            }
        }
    }

    /// Waits out a 429's quiet time and, for a message to `chat`, its pace (`TelegramPace`). The
    /// slot is taken before the wait, so concurrent sends queue up instead of all going at once.
    private func unreserve(_ slot: Date, _ chat: TelegramChatID?) {
        guard let chat else { return }
        state.withLock { s in
            if let index = s.sends[chat]?.lastIndex(of: slot) { s.sends[chat]?.remove(at: index) }
            if let index = s.allSends.lastIndex(of: slot) { s.allSends.remove(at: index) }
        }
    }

    @discardableResult
    private func waitForTurn(_ chat: TelegramChatID?) async throws -> Date {
        let start = now()
        let slot = state.withLock { s -> Date in
            var slot = max(start, s.quietUntil ?? start)
            guard let chat else { return slot }
            var times = s.sends[chat] ?? []
            slot = pace.slot(after: slot, chat: times, all: s.allSends)
            times.append(slot)
            s.sends[chat] = times.filter { $0 > slot.addingTimeInterval(-pace.memory) }
            s.allSends = (s.allSends + [slot]).filter { $0 > slot.addingTimeInterval(-pace.memory) }.sorted()
            return slot
        }
        let wait = slot.timeIntervalSince(start)
        if wait > 0 { try await DeliveryStop.wait(wait, sleep: sleep) }
        return slot
    }

    private func request(_ method: String, body: Body, extraTime: Double) throws -> HTTPRequest {
        let url = baseURL.appendingPathComponent("bot" + token).appendingPathComponent(method)
        var headers = ["User-Agent": "metrika/\(MetrikaVersion.current)", "Accept": "application/json"]
        let data: Data
        switch body {
        case .json(let object):
            headers["Content-Type"] = "application/json"
            data = Data(object.serialized().utf8)
        case .multipart(let form):
            headers["Content-Type"] = form.contentType
            data = form.finished()
        }
        return HTTPRequest(
            method: "POST", url: url, headers: headers, body: data, timeout: timeout + extraTime,
            maxResponseBytes: Self.maxResponseBytes)
    }

    private enum Outcome {
        case answer(Data)
        case transient(TelegramError)
        case flood(seconds: Double, TelegramError)
        case migrated(TelegramChatID, TelegramError)
        case failed(TelegramError)
    }

    private func exchange(_ method: String, _ request: HTTPRequest) async -> Outcome {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            switch error {
            case .timedOut: return .transient(.timedOut(seconds: request.timeout))
            case .tooLarge: return .failed(.answerTooLarge(limit: Self.maxResponseBytes))
            case .cannotConnect, .connectionLost:
                return .transient(.unreachable(detail: masked(MetrikaClient.unavailableText(error))))
            default: return .failed(.unreachable(detail: masked(MetrikaClient.unavailableText(error))))
            }
        } catch {
            return .failed(.unreachable(detail: masked(String(describing: error))))
        }
        if response.isRedirect {
            return .failed(.redirected(status: response.status, target: masked(response.redirectTarget(from: baseURL))))
        }
        let envelope: TelegramEnvelope<Discarded>
        do {
            envelope = try JSONDecoder().decode(
                TelegramEnvelope<Discarded>.self, from: JSONPreflight.prepare(response.body))
        } catch {
            // A proxy's HTML page in front of a 5xx is the outage, not garbage.
            if (500..<600).contains(response.status) {
                return .transient(.serverError(method: method, status: response.status, description: ""))
            }
            return .failed(
                .garbage(method: method, status: response.status, detail: describeGarbage(response.body, error)))
        }
        if envelope.ok, (200..<300).contains(response.status) { return .answer(response.body) }
        let code = envelope.errorCode ?? response.status
        let description = masked(TerminalText.quote(envelope.description ?? "", hiding: secrets))
        let lowered = description.lowercased()
        if code == 400, let newID = envelope.parameters?.migrateToChatID {
            return .migrated(TelegramChatID(newID), .rejected(method: method, status: 400, description: description))
        }
        switch code {
        case 401, 404:
            return .failed(.unauthorized)
        case 429:
            let seconds = envelope.parameters?.retryAfter ?? 1
            return .flood(seconds: max(0, seconds), .tooManyRequests(retryAfter: Int(seconds.rounded(.up))))
        case 403:
            return .failed(
                .blocked(chat: chatText(request), reason: description.replacingOccurrences(of: "Forbidden: ", with: ""))
            )
        case 400 where lowered.contains("chat not found"):
            return .failed(.chatNotFound(chat: chatText(request)))
        case 500..<600:
            return .transient(.serverError(method: method, status: code, description: description))
        default:
            return .failed(
                .rejected(
                    method: method, status: code, description: description.isEmpty ? "no description" : description))
        }
    }

    private func decodeResult<Result: Decodable>(_ method: String, _ body: Data) throws -> Result {
        do {
            let envelope = try JSONDecoder().decode(TelegramEnvelope<Result>.self, from: JSONPreflight.prepare(body))
            guard let result = envelope.result else {
                throw TelegramError.garbage(method: method, status: 200, detail: "\"ok\": true without a result")
            }
            return result
        } catch let error as TelegramError {
            throw error
        } catch {
            throw TelegramError.garbage(method: method, status: 200, detail: describeGarbage(body, error))
        }
    }

    private func describeGarbage(_ body: Data, _ error: any Error) -> String {
        if let deep = error as? JSONPreflight.TooDeep { return deep.description }
        if body.isEmpty { return "an empty body" }
        let start = String(decoding: body.prefix(80), as: UTF8.self)
        return "it starts \(masked(TerminalText.quote(start, hiding: secrets)))"
    }

    /// The chat a request went to, read back from its body (only numbers and @names are ever sent).
    private func chatText(_ request: HTTPRequest) -> String {
        guard let body = request.body else { return "?" }
        if let chat = try? JSONDecoder().decode(SentChat.self, from: body).chatID { return chat }
        // Multipart: the chat_id field is the first part.
        let text = String(decoding: body.prefix(400), as: UTF8.self)
        guard let range = text.range(of: "name=\"chat_id\"\r\n\r\n") else { return "?" }
        return String(text[range.upperBound...].prefix { $0 != "\r" })
    }

    /// A JSON request body's `chat_id`, as this bot wrote it.
    private struct SentChat: Decodable {
        var chatID: String
        enum CodingKeys: String, CodingKey { case chatID = "chat_id" }
    }

    private func masked(_ text: String) -> String {
        TerminalText.masking(secrets, in: text)
    }
}

/// A `result` that is not read (`ok` alone matters).
struct Discarded: Decodable {
    init(from decoder: any Decoder) throws {}
}
