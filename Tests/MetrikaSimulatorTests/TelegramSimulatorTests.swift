import Foundation
import Synchronization
import Testing

@testable import MetrikaSimulator

/// The Bot API simulator's answers, through its handler (no socket): shapes, scenario chats, limits,
/// the HTML check, multipart photos and getUpdates' offset.
@Suite struct TelegramSimulatorTests {
    let bot = BotAPISimulator()
    var base: String { "/bot\(BotAPISimulator.defaultToken)" }

    func call(_ method: String, json: String, token: String? = nil) throws -> (Int, JSONValue) {
        let path = token.map { "/bot\($0)/\(method)" } ?? "\(base)/\(method)"
        let response = bot.handle(
            HTTPRequest(
                method: "POST", path: path, headers: [("Content-Type", "application/json")], body: Array(json.utf8)))
        return (response.status, try JSONValue.parse(response.body))
    }

    func expectFailure(
        _ answer: (Int, JSONValue), _ code: Int, _ description: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.0 == code, sourceLocation: sourceLocation)
        #expect(answer.1["ok"] == .bool(false), sourceLocation: sourceLocation)
        #expect(answer.1["error_code"] == .int(code), sourceLocation: sourceLocation)
        #expect(
            answer.1["description"]?.stringValue?.hasPrefix(description) == true, "\(answer.1.text)",
            sourceLocation: sourceLocation)
    }

    @Test func getMeAnswersTheBotAndAWrongTokenIs401() throws {
        let (status, me) = try call("getMe", json: "{}")
        #expect(status == 200)
        #expect(me["ok"] == .bool(true))
        #expect(me["result"]?["username"] == .string("metrika_test_bot"))
        expectFailure(try call("getMe", json: "{}", token: "1:wrong"), 401, "Unauthorized")
    }

    @Test func sendMessageChecksHTMLAndLength() throws {
        let ok = try call(
            "sendMessage", json: #"{"chat_id":"42","text":"<b>1001</b> &amp; <pre>x</pre>","parse_mode":"HTML"}"#)
        #expect(ok.0 == 200)
        #expect(ok.1["result"]?["message_id"]?.intValue != nil)
        expectFailure(
            try call("sendMessage", json: #"{"chat_id":42,"text":"<script>x</script>","parse_mode":"HTML"}"#), 400,
            "Bad Request: can't parse entities: unsupported start tag \"script\"")
        expectFailure(
            try call("sendMessage", json: #"{"chat_id":42,"text":"<b>open","parse_mode":"HTML"}"#), 400,
            "Bad Request: can't parse entities")
        expectFailure(
            try call("sendMessage", json: #"{"chat_id":42,"text":"<b><i>x</b></i>","parse_mode":"HTML"}"#), 400,
            "Bad Request: can't parse entities")
        expectFailure(
            try call("sendMessage", json: #"{"chat_id":42,"text":"a & b","parse_mode":"HTML"}"#), 400,
            "Bad Request: can't parse entities")
        // Without a parse mode the same text is plain.
        #expect(try call("sendMessage", json: #"{"chat_id":42,"text":"a & b <x>"}"#).0 == 200)
        let long = String(repeating: "x", count: 4097)
        expectFailure(
            try call("sendMessage", json: #"{"chat_id":42,"text":"\#(long)"}"#), 400, "Bad Request: message is too long"
        )
        // The limit counts the text shown, not the tags.
        let atLimit = "<b>" + String(repeating: "x", count: 4096) + "</b>"
        #expect(try call("sendMessage", json: #"{"chat_id":42,"text":"\#(atLimit)","parse_mode":"HTML"}"#).0 == 200)
        #expect(bot.sent.map(\.chatID) == ["42", "42", "42"])
    }

    static let scenarios: [(Int64, Int, String)] = [
        (BotScenarioChat.notFound.rawValue, 400, "Bad Request: chat not found"),
        (BotScenarioChat.blocked.rawValue, 403, "Forbidden: bot was blocked by the user"),
        (BotScenarioChat.kicked.rawValue, 403, "Forbidden: bot was kicked from the group chat"),
        (BotScenarioChat.flood.rawValue, 429, "Too Many Requests: retry after 3600")
    ]

    @Test(arguments: scenarios)
    func scenarioChatsAnswerTheirFault(_ chat: Int64, _ code: Int, _ description: String) throws {
        expectFailure(try call("sendMessage", json: #"{"chat_id":\#(chat),"text":"hi"}"#), code, description)
        #expect(bot.sent.isEmpty)
    }

    @Test func floodOnceAsksToRetryAfterThenTakesTheMessage() throws {
        let first = try call("sendMessage", json: #"{"chat_id":429,"text":"hi"}"#)
        expectFailure(first, 429, "Too Many Requests: retry after 3")
        #expect(first.1["parameters"]?["retry_after"] == .int(BotScenarioChat.retryAfter))
        #expect(try call("sendMessage", json: #"{"chat_id":429,"text":"hi"}"#).0 == 200)
        bot.reset()
        #expect(try call("sendMessage", json: #"{"chat_id":429,"text":"hi"}"#).0 == 429)
    }

    @Test func aMigratedGroupNamesItsNewID() throws {
        let answer = try call("sendMessage", json: #"{"chat_id":-4001,"text":"hi"}"#)
        expectFailure(answer, 400, "Bad Request: group chat was upgraded to a supergroup chat")
        #expect(answer.1["parameters"]?["migrate_to_chat_id"] == .int(Int(BotScenarioChat.migratedTo)))
    }

    func multipart(_ fields: [(String, String)], file: (field: String, name: String, bytes: [UInt8])) -> HTTPRequest {
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--XyZ\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array(
            "--XyZ\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\nContent-Type: image/png\r\n\r\n"
                .utf8)
        body += file.bytes + Array("\r\n--XyZ--\r\n".utf8)
        return HTTPRequest(
            method: "POST", path: "\(base)/\(file.field == "photo" ? "sendPhoto" : "sendDocument")",
            headers: [("Content-Type", "multipart/form-data; boundary=XyZ")], body: body)
    }

    static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array(repeating: 7, count: 100)

    @Test func sendPhotoTakesAMultipartPNGAndChecksItAndTheCaption() throws {
        let ok = bot.handle(
            multipart(
                [("chat_id", "42"), ("caption", "<b>Visits</b>"), ("parse_mode", "HTML")],
                file: ("photo", "v.png", Self.png)))
        #expect(ok.status == 200)
        #expect(bot.sent.first?.fileBytes == Self.png.count)
        #expect(bot.sent.first?.caption == "<b>Visits</b>")
        let notPNG = bot.handle(multipart([("chat_id", "42")], file: ("photo", "v.png", Array("<svg/>".utf8))))
        #expect(notPNG.status == 400)
        let longCaption = bot.handle(
            multipart(
                [("chat_id", "42"), ("caption", String(repeating: "c", count: 1025))],
                file: ("photo", "v.png", Self.png)))
        #expect(longCaption.status == 400)
        #expect(String(decoding: longCaption.body, as: UTF8.self).contains("message caption is too long"))
        let svg = bot.handle(multipart([("chat_id", "42")], file: ("document", "v.svg", Array("<svg/>".utf8))))
        #expect(svg.status == 200)
        #expect(bot.sent.map(\.method) == ["sendPhoto", "sendDocument"])
    }

    @Test func getUpdatesNeedsTheWebhookDeletedAndHonoursTheOffset() throws {
        expectFailure(try call("getUpdates", json: "{}"), 409, "Conflict")
        #expect(try call("deleteWebhook", json: "{}").0 == 200)
        let first = bot.queueMessage(chatID: 42, text: "/report 1001")
        bot.queueMessage(chatID: -4242, text: "/help@metrika_test_bot")
        let (_, both) = try call("getUpdates", json: #"{"timeout":0}"#)
        guard case .array(let updates) = both["result"] else {
            Issue.record("\(both.text)")
            return
        }
        #expect(updates.count == 2)
        #expect(updates[0]["message"]?["entities"]?.text == #"[{"type":"bot_command","offset":0,"length":7}]"#)
        #expect(updates[1]["message"]?["chat"]?["type"] == .string("group"))
        let (_, rest) = try call("getUpdates", json: #"{"offset":\#(first + 1),"timeout":0}"#)
        guard case .array(let remaining) = rest["result"] else {
            Issue.record("\(rest.text)")
            return
        }
        #expect(remaining.count == 1)
        // Confirmed updates never come back.
        let (_, again) = try call("getUpdates", json: #"{"offset":\#(first),"timeout":0}"#)
        guard case .array(let still) = again["result"] else { return }
        #expect(still.count == 1)
    }

    @Test func aLongPollReturnsAsSoonAsAMessageArrives() async throws {
        _ = try call("deleteWebhook", json: "{}")
        let simulator = bot
        // The times are taken where the poll runs: a loaded machine may start or resume the task late,
        // which is not the simulator's wait. The message is queued only once the poll has begun, and the
        // poll waits the longest Telegram allows (50 s), so a test task resumed late still lands inside it.
        let began = Mutex<Date?>(nil)
        let poll = Task.detached { () -> (Int, JSONValue, Date) in
            began.withLock { $0 = Date() }
            let response = simulator.handle(
                HTTPRequest(method: "GET", path: "/bot\(BotAPISimulator.defaultToken)/getUpdates", query: "timeout=50"))
            return (response.status, try JSONValue.parse(response.body), Date())
        }
        while began.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(50))
        let queued = Date()
        simulator.queueMessage(chatID: 42, text: "/today")
        let (status, answer, answered) = try await poll.value
        #expect(status == 200)
        #expect(answered.timeIntervalSince(queued) < 5)
        guard case .array(let updates) = answer["result"] else {
            Issue.record("\(answer.text)")
            return
        }
        #expect(updates.count == 1)
    }

    @Test func setMyCommandsTakesTheMenu() throws {
        #expect(
            try call("setMyCommands", json: #"{"commands":[{"command":"report","description":"A report"}]}"#).0 == 200)
        expectFailure(try call("setMyCommands", json: #"{"commands":"nope"}"#), 400, "Bad Request")
    }

    @Test func theCommandLineReadsTheTelegramFlags() throws {
        #expect(BotCommandLine.wanted(["--port", "0", "--telegram"]))
        let options = try BotCommandLine.parse(["--telegram", "--port=8081", "--token", "1:abc"])
        #expect(options.port == 8081 && options.token == "1:abc" && !options.showHelp)
        #expect(try BotCommandLine.parse(["--telegram", "--help"]).showHelp)
        #expect(throws: BotCommandLineError.self) { _ = try BotCommandLine.parse(["--telegram", "--fixtures", "x"]) }
        #expect(try BotCommandLine.parse(["--telegram", "--parent-pid=77"]).parentPID == 77 && options.parentPID == nil)
        #expect(throws: BotCommandLineError.self) { _ = try BotCommandLine.parse(["--telegram", "--parent-pid", "x"]) }
    }
}
