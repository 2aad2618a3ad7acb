import Foundation
import Synchronization

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The Telegram Bot API on loopback, for tests (`metrika-fake-api --telegram`, docs/simulator.md).
///
/// It serves `/bot<token>/METHOD` for getMe, sendMessage, sendPhoto, sendDocument, getUpdates,
/// deleteWebhook and setMyCommands with the real answers' shapes — `{"ok":true,"result":…}` and
/// `{"ok":false,"error_code":N,"description":"…","parameters":{…}}` (core.telegram.org/bots/api#making-requests
/// and #responseparameters). Scenario chat ids (`BotScenarioChat`) answer each documented fault; the
/// control endpoints under `/__tg/` queue incoming messages and list what was sent. Shares no code
/// with the client.
package final class BotAPISimulator: Sendable {
    /// The token the simulator accepts; any other gets 401.
    package let token: String
    /// The bot's username, as getMe answers it.
    package let username: String

    /// One accepted send, as the control endpoint lists it.
    package struct Sent: Sendable {
        package var method: String
        package var chatID: String
        package var text: String?
        package var caption: String?
        package var parseMode: String?
        package var fileName: String?
        package var fileBytes: Int?
        package var messageID: Int
        /// When it was accepted (seconds since 1970).
        package var at: Double = 0
    }

    struct Update: Sendable {
        var id: Int
        var document: JSONValue
    }

    struct State {
        var sent: [Sent] = []
        var updates: [Update] = []
        var nextUpdateID = 100_001
        var nextMessageID = 1
        var webhookSet = true
        var commands: JSONValue = .array([])
        /// Chats that already had their one scenario fault (the 429, the 502) since the last reset.
        var faulted: Set<String> = []
        /// Every Bot API request's method, in order (control requests not counted).
        var calls: [String] = []
        /// Seconds each send waits before it is accepted (`POST /__tg/slow`): a kill can fall mid-answer.
        var sendDelay: Double = 0
        /// Set by `POST /__tg/flood`: every send answers 429 with this `retry_after` until a reset.
        var floodRetryAfter: Int?
    }

    let state = Mutex(State())

    package init(token: String = BotAPISimulator.defaultToken, username: String = "metrika_test_bot") {
        self.token = token
        self.username = username
    }

    /// The token tests use unless they pass another: shaped like a real one (`<bot id>:<35 characters>`).
    package static let defaultToken = "123456789:AAE-simulated_TOKEN_0123456789abcdefgh"

    /// What was sent, in order.
    package var sent: [Sent] { state.withLock { $0.sent } }

    /// Every method called, in order.
    package var calls: [String] { state.withLock { $0.calls } }

    /// Queues an incoming text message from `chatID`, as a user typing it would; returns its update id.
    @discardableResult
    package func queueMessage(chatID: Int64, text: String, fromID: Int64? = nil, username: String? = nil) -> Int {
        state.withLock { s in
            let id = s.nextUpdateID
            s.nextUpdateID += 1
            let messageID = s.nextMessageID
            s.nextMessageID += 1
            let chatType = chatID < 0 ? (String(chatID).hasPrefix("-100") ? "supergroup" : "group") : "private"
            var from: [(String, JSONValue)] = [
                ("id", .int(Int(fromID ?? chatID))), ("is_bot", .bool(false)), ("first_name", .string("Test"))
            ]
            if let username { from.append(("username", .string(username))) }
            var message: [(String, JSONValue)] = [
                ("message_id", .int(messageID)), ("from", .object(from)),
                ("chat", .object([("id", .int(Int(chatID))), ("type", .string(chatType))])),
                ("date", .int(Int(Date().timeIntervalSince1970))), ("text", .string(text))
            ]
            if text.hasPrefix("/") {
                let length = text.utf16.prefix { $0 != 0x20 && $0 != 0x0A }.count
                message.append(
                    (
                        "entities",
                        .array([
                            .object([("type", .string("bot_command")), ("offset", .int(0)), ("length", .int(length))])
                        ])
                    ))
            }
            s.updates.append(
                Update(id: id, document: .object([("update_id", .int(id)), ("message", .object(message))])))
            return id
        }
    }

    /// Forgets what was sent and queued; the webhook is set again and the scenario faults re-armed.
    package func reset() {
        state.withLock { $0 = State() }
    }

    // MARK: - Requests

    /// Answers one request (the `HTTPServer` handler).
    package func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasPrefix("/__tg/") { return control(request) }
        let pieces = request.path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        // "/bot<token>/<method>" splits into "", "bot<token>", "<method>".
        guard pieces.count == 3, pieces[0].isEmpty, pieces[1].hasPrefix("bot") else {
            return Self.failure(404, "Not Found")
        }
        guard String(pieces[1].dropFirst(3)) == token else {
            return Self.failure(401, "Unauthorized")
        }
        let method = String(pieces[2])
        state.withLock { $0.calls.append(method) }
        let parameters: BotParameters
        switch BotParameters.read(request) {
        case .success(let read): parameters = read
        case .failure(let why): return Self.failure(400, "Bad Request: \(why.reason)")
        }
        switch method.lowercased() {
        case "getme":
            return Self.success(
                .object([
                    ("id", .int(Int(token.prefix { $0 != ":" }) ?? 0)), ("is_bot", .bool(true)),
                    ("first_name", .string("metrika test")), ("username", .string(username)),
                    ("can_join_groups", .bool(true)), ("can_read_all_group_messages", .bool(false)),
                    ("supports_inline_queries", .bool(false))
                ]))
        case "sendmessage": return send(method: "sendMessage", parameters)
        case "sendphoto": return send(method: "sendPhoto", parameters)
        case "senddocument": return send(method: "sendDocument", parameters)
        case "getupdates": return getUpdates(parameters)
        case "deletewebhook":
            state.withLock { $0.webhookSet = false }
            return Self.success(.bool(true))
        case "setmycommands":
            guard let text = parameters["commands"], let commands = try? JSONValue.parse(text),
                case .array(let list) = commands,
                list.allSatisfy({ $0["command"]?.stringValue != nil && $0["description"]?.stringValue != nil })
            else { return Self.failure(400, "Bad Request: can't parse BotCommand array") }
            state.withLock { $0.commands = commands }
            return Self.success(.bool(true))
        default:
            return Self.failure(404, "Not Found")
        }
    }

    private func send(method: String, _ parameters: BotParameters) -> HTTPResponse {
        guard let chat = parameters["chat_id"], !chat.isEmpty else {
            return Self.failure(400, "Bad Request: chat_id is empty")
        }
        if let seconds = state.withLock({ $0.floodRetryAfter }) {
            return Self.failure(
                429, "Too Many Requests: retry after \(seconds)", parameters: [("retry_after", .int(seconds))])
        }
        if let fault = scenarioFault(chat) { return fault }
        let delay = state.withLock { $0.sendDelay }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        let parseMode = parameters["parse_mode"]
        var record = Sent(method: method, chatID: chat, parseMode: parseMode, messageID: 0)
        if method == "sendMessage" {
            guard let text = parameters["text"], !text.isEmpty else {
                return Self.failure(400, "Bad Request: message text is empty")
            }
            switch visible(text, parseMode: parseMode) {
            case .failure(let why): return Self.failure(400, "Bad Request: can't parse entities: \(why.reason)")
            case .success(let shown):
                guard !shown.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    return Self.failure(400, "Bad Request: message text is empty")
                }
                guard BotHTMLCheck.length(shown) <= 4096 else {
                    return Self.failure(400, "Bad Request: message is too long")
                }
            }
            record.text = text
        } else {
            let field = method == "sendPhoto" ? "photo" : "document"
            guard let file = parameters.files[field] else {
                return Self.failure(400, "Bad Request: there is no \(field) in the request")
            }
            if method == "sendPhoto" {
                guard
                    file.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                        || file.bytes.starts(with: [0xFF, 0xD8, 0xFF])
                else {
                    return Self.failure(400, "Bad Request: IMAGE_PROCESS_FAILED")
                }
                guard file.bytes.count <= 10 << 20 else {
                    return Self.failure(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
                }
            } else {
                guard file.bytes.count <= 50 << 20 else { return Self.failure(413, "Request Entity Too Large") }
            }
            if let caption = parameters["caption"] {
                switch visible(caption, parseMode: parseMode) {
                case .failure(let why): return Self.failure(400, "Bad Request: can't parse entities: \(why.reason)")
                case .success(let shown):
                    guard BotHTMLCheck.length(shown) <= 1024 else {
                        return Self.failure(400, "Bad Request: message caption is too long")
                    }
                }
                record.caption = caption
            }
            record.fileName = file.fileName
            record.fileBytes = file.bytes.count
        }
        let messageID = state.withLock { s -> Int in
            let id = s.nextMessageID
            s.nextMessageID += 1
            record.messageID = id
            record.at = Date().timeIntervalSince1970
            s.sent.append(record)
            return id
        }
        let chatNumber = Int(chat) ?? 0
        return Self.success(
            .object([
                ("message_id", .int(messageID)), ("date", .int(Int(Date().timeIntervalSince1970))),
                (
                    "chat",
                    .object([("id", .int(chatNumber)), ("type", .string(chatNumber < 0 ? "supergroup" : "private"))])
                )
            ]))
    }

    private func visible(_ text: String, parseMode: String?) -> Result<String, BotRefusal> {
        guard let parseMode, !parseMode.isEmpty else { return .success(text) }
        guard parseMode.uppercased() == "HTML" else { return .success(text) }
        return BotHTMLCheck.visibleText(text)
    }

    /// The fault a scenario chat answers (`BotScenarioChat`), or nil for an ordinary chat.
    private func scenarioFault(_ chat: String) -> HTTPResponse? {
        guard let scenario = BotScenarioChat(rawValue: Int64(chat) ?? 0) else { return nil }
        switch scenario {
        case .notFound: return Self.failure(400, "Bad Request: chat not found")
        case .blocked: return Self.failure(403, "Forbidden: bot was blocked by the user")
        case .kicked: return Self.failure(403, "Forbidden: bot was kicked from the group chat")
        case .migrated:
            return Self.failure(
                400, "Bad Request: group chat was upgraded to a supergroup chat",
                parameters: [("migrate_to_chat_id", .int(Int(BotScenarioChat.migratedTo)))])
        case .floodOnce, .badGatewayOnce:
            let first = state.withLock { $0.faulted.insert(chat).inserted }
            guard first else { return nil }
            if scenario == .floodOnce {
                return Self.failure(
                    429, "Too Many Requests: retry after \(BotScenarioChat.retryAfter)",
                    parameters: [("retry_after", .int(BotScenarioChat.retryAfter))])
            }
            return Self.failure(502, "Bad Gateway")
        case .flood:
            return Self.failure(429, "Too Many Requests: retry after 3600", parameters: [("retry_after", .int(3600))])
        case .garbage:
            return HTTPResponse(
                status: 200, contentType: "text/html", body: Array("<html><body>upstream says hi</body></html>".utf8))
        case .hugeAnswer:
            // A well-formed answer of 6 MiB: a client must stop reading at its bound.
            let padding = String(repeating: "x", count: 6 << 20)
            return Self.success(.object([("message_id", .int(1)), ("padding", .string(padding))]))
        case .hang:
            // Holds the connection longer than any client's timeout in the tests, then answers.
            Thread.sleep(forTimeInterval: 5)
            return Self.failure(504, "Gateway Timeout")
        }
    }

    private func getUpdates(_ parameters: BotParameters) -> HTTPResponse {
        if state.withLock({ $0.webhookSet }) {
            return Self.failure(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
            )
        }
        let offset = parameters["offset"].flatMap { Int($0) }
        let limit = min(100, max(1, parameters["limit"].flatMap { Int($0) } ?? 100))
        let timeout = min(50, max(0, parameters["timeout"].flatMap { Int($0) } ?? 0))
        let deadline = Date().addingTimeInterval(Double(timeout))
        while true {
            let found = state.withLock { s -> [JSONValue] in
                // An offset confirms every update before it: they are never returned again.
                if let offset { s.updates.removeAll { $0.id < offset } }
                return s.updates.prefix(limit).map(\.document)
            }
            if !found.isEmpty || Date() >= deadline { return Self.success(.array(found)) }
            usleep(10_000)
        }
    }

    // MARK: - Control (tests only)

    private func control(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/__tg/sent"):
            let items = sent.map { item -> JSONValue in
                var pairs: [(String, JSONValue)] = [
                    ("method", .string(item.method)), ("chat_id", .string(item.chatID)),
                    ("message_id", .int(item.messageID))
                ]
                if let text = item.text { pairs.append(("text", .string(text))) }
                if let caption = item.caption { pairs.append(("caption", .string(caption))) }
                if let mode = item.parseMode { pairs.append(("parse_mode", .string(mode))) }
                if let name = item.fileName { pairs.append(("file_name", .string(name))) }
                if let bytes = item.fileBytes { pairs.append(("file_bytes", .int(bytes))) }
                pairs.append(("at", .double(item.at)))
                return .object(pairs)
            }
            return .json(200, .object([("sent", .array(items)), ("calls", .array(calls.map { .string($0) }))]))
        case ("POST", "/__tg/updates"):
            guard let document = try? JSONValue.parse(request.body), let chat = document["chat_id"]?.intValue,
                let text = document["text"]?.stringValue
            else {
                return .json(400, .object([("error", .string("expected {\"chat_id\": N, \"text\": \"…\"}"))]))
            }
            let id = queueMessage(
                chatID: Int64(chat), text: text, fromID: document["from_id"]?.intValue.map(Int64.init),
                username: document["username"]?.stringValue)
            return .json(200, .object([("update_id", .int(id))]))
        case ("POST", "/__tg/slow"):
            guard let document = try? JSONValue.parse(request.body), let seconds = document["seconds"]?.doubleValue,
                (0...60).contains(seconds)
            else {
                return .json(400, .object([("error", .string("expected {\"seconds\": 0…60}"))]))
            }
            state.withLock { $0.sendDelay = seconds }
            return .json(200, .object([("ok", .bool(true))]))
        case ("POST", "/__tg/flood"):
            guard let document = try? JSONValue.parse(request.body), let seconds = document["retry_after"]?.intValue
            else {
                return .json(400, .object([("error", .string("expected {\"retry_after\": N}"))]))
            }
            state.withLock { $0.floodRetryAfter = seconds }
            return .json(200, .object([("ok", .bool(true))]))
        case ("POST", "/__tg/reset"):
            reset()
            return .json(200, .object([("ok", .bool(true))]))
        default:
            return .json(404, .object([("error", .string("no such control endpoint"))]))
        }
    }

    // MARK: - Answers

    static func success(_ result: JSONValue) -> HTTPResponse {
        .json(200, .object([("ok", .bool(true)), ("result", result)]))
    }

    static func failure(_ code: Int, _ description: String, parameters: [(String, JSONValue)] = []) -> HTTPResponse {
        var pairs: [(String, JSONValue)] = [
            ("ok", .bool(false)), ("error_code", .int(code)), ("description", .string(description))
        ]
        if !parameters.isEmpty { pairs.append(("parameters", .object(parameters))) }
        return .json(code, .object(pairs))
    }
}

/// Chat ids that answer one documented fault each (docs/simulator.md, *Telegram Bot API*).
package enum BotScenarioChat: Int64, Sendable, CaseIterable {
    /// 400 `Bad Request: chat not found`.
    case notFound = 404
    /// 403 `Forbidden: bot was blocked by the user`.
    case blocked = 403
    /// 403 `Forbidden: bot was kicked from the group chat`.
    case kicked = -403
    /// 400 with `parameters.migrate_to_chat_id` = `migratedTo` (a group that became a supergroup).
    case migrated = -4001
    /// The first send since the last reset: 429 with `parameters.retry_after` = `retryAfter`; then accepted.
    case floodOnce = 429
    /// Always 429 with `retry_after` 3600.
    case flood = 4290
    /// The first send since the last reset: 502 Bad Gateway; then accepted.
    case badGatewayOnce = 502
    /// 200 with an HTML page instead of JSON.
    case garbage = 999
    /// No answer for 5 s, then 504.
    case hang = 504
    /// 200 with a well-formed answer of 6 MiB.
    case hugeAnswer = 6000

    /// Where `migrated` moved to.
    package static let migratedTo: Int64 = -1_001_234_567_890
    /// The wait `floodOnce` asks for, in seconds.
    package static let retryAfter = 3
}

/// A Bot API call's parameters, from the query, a urlencoded or JSON body, or multipart/form-data
/// (core.telegram.org/bots/api#making-requests: all four are accepted).
struct BotParameters {
    var fields: [String: String] = [:]
    var files: [String: BotFormPart] = [:]

    subscript(name: String) -> String? { fields[name] }

    static func read(_ request: HTTPRequest) -> Result<BotParameters, BotRefusal> {
        var parameters = BotParameters()
        for (name, value) in request.queryItems { parameters.fields[name] = value }
        guard !request.body.isEmpty else { return .success(parameters) }
        let contentType = request.header("content-type") ?? ""
        let mediaType =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch mediaType {
        case "application/json":
            guard let document = try? JSONValue.parse(request.body), case .object(let pairs) = document else {
                return .failure(BotRefusal("can't parse JSON object"))
            }
            for (name, value) in pairs {
                switch value {
                case .string(let text): parameters.fields[name] = text
                case .int(let number): parameters.fields[name] = String(number)
                case .bool(let flag): parameters.fields[name] = flag ? "true" : "false"
                case .null: continue
                default: parameters.fields[name] = value.text
                }
            }
        case "multipart/form-data":
            guard let boundary = BotMultipart.boundary(from: contentType),
                let parts = BotMultipart.parse(request.body, boundary: boundary)
            else { return .failure(BotRefusal("can't parse multipart/form-data")) }
            for part in parts {
                if part.fileName != nil {
                    parameters.files[part.name] = part
                } else {
                    parameters.fields[part.name] = part.text
                }
            }
        default:
            for (name, value) in request.formItems { parameters.fields[name] = value }
        }
        return .success(parameters)
    }
}
