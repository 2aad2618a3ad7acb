import Foundation

/// The bot itself, as `getMe` answers (core.telegram.org/bots/api#user).
package struct TelegramBotIdentity: Sendable, Equatable, Decodable {
    package var id: Int64
    package var username: String?
    package var firstName: String

    enum CodingKeys: String, CodingKey {
        case id, username
        case firstName = "first_name"
    }
}

/// One incoming update (core.telegram.org/bots/api#update); only messages are read, other kinds
/// arrive with `message` nil and are confirmed by the next offset all the same.
package struct TelegramUpdate: Sendable, Equatable, Decodable {
    package var id: Int64
    package var message: TelegramMessage?

    enum CodingKeys: String, CodingKey {
        case id = "update_id"
        case message
    }
}

/// A message someone sent the bot (core.telegram.org/bots/api#message), the fields metrika reads.
package struct TelegramMessage: Sendable, Equatable, Decodable {
    package var id: Int64
    package var chat: Chat
    package var from: Sender?
    package var date: Int64?
    package var text: String?

    package struct Chat: Sendable, Equatable, Decodable {
        package var id: Int64
        /// `private`, `group`, `supergroup` or `channel`.
        package var type: String?
    }

    package struct Sender: Sendable, Equatable, Decodable {
        package var id: Int64
        package var isBot: Bool?
        package var username: String?

        enum CodingKeys: String, CodingKey {
            case id, username
            case isBot = "is_bot"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id = "message_id"
        case chat, from, date, text
    }
}

/// One entry of the command menu `setMyCommands` sets (core.telegram.org/bots/api#botcommand):
/// `command` is 1–32 lower-case letters, digits and `_`; `description` 1–256 characters.
package struct TelegramBotCommand: Sendable, Equatable, Encodable {
    package var command: String
    package var description: String

    package init(_ command: String, _ description: String) {
        precondition(
            (1...32).contains(command.count)
                && command.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") },
            "a bot command is 1-32 lower-case letters, digits or _")
        precondition((1...256).contains(description.count), "a bot command's description is 1-256 characters")
        self.command = command
        self.description = description
    }
}

/// The envelope of every answer: `{"ok": true, "result": …}` or `{"ok": false, "error_code": N,
/// "description": "…", "parameters": {"retry_after": N, "migrate_to_chat_id": N}}`
/// (core.telegram.org/bots/api#making-requests, #responseparameters).
struct TelegramEnvelope<Result: Decodable>: Decodable {
    var ok: Bool
    var result: Result?
    var errorCode: Int?
    var description: String?
    var parameters: Parameters?

    struct Parameters: Decodable {
        var retryAfter: Double?
        var migrateToChatID: Int64?

        enum CodingKeys: String, CodingKey {
            case retryAfter = "retry_after"
            case migrateToChatID = "migrate_to_chat_id"
        }
    }

    enum CodingKeys: String, CodingKey {
        case ok, result, description, parameters
        case errorCode = "error_code"
    }
}

/// A sent message: only its id is kept.
struct TelegramSentMessage: Decodable {
    var messageID: Int64

    enum CodingKeys: String, CodingKey {
        case messageID = "message_id"
    }
}

/// `multipart/form-data` (RFC 7578), how a file goes up to the Bot API (core.telegram.org/bots/api#sending-files).
struct TelegramMultipartBody {
    let boundary: String
    private(set) var data = Data()

    init(boundary: String = "metrika-" + UUID().uuidString) {
        self.boundary = boundary
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func field(_ name: String, _ value: String) {
        data.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n".utf8))
        data.append(Data(value.utf8))
        data.append(Data("\r\n".utf8))
    }

    /// A file part; `fileName` is cut down to safe characters (it is a header parameter).
    mutating func file(_ name: String, fileName: String, contentType: String, bytes: Data) {
        let safe = String(
            fileName.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }.prefix(100))
        data.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(safe.isEmpty ? "file" : safe)\"\r\nContent-Type: \(contentType)\r\n\r\n"
                    .utf8))
        data.append(bytes)
        data.append(Data("\r\n".utf8))
    }

    func finished() -> Data {
        data + Data("--\(boundary)--\r\n".utf8)
    }
}
