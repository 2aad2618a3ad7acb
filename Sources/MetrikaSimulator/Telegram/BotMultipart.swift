import Foundation

/// One part of a `multipart/form-data` body: a field or a file.
struct BotFormPart: Sendable {
    var name: String
    var fileName: String?
    var contentType: String?
    var bytes: [UInt8]

    var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Reads `multipart/form-data` (RFC 7578) as the Bot API takes uploads. Written for the simulator
/// alone: nil when the body is not well-formed, so the caller answers 400.
enum BotMultipart {
    static func boundary(from contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    static func parse(_ body: [UInt8], boundary: String) -> [BotFormPart]? {
        let delimiter = Array("--\(boundary)".utf8)
        guard var cursor = find(delimiter, in: body, from: 0) else { return nil }
        var parts: [BotFormPart] = []
        while true {
            cursor += delimiter.count
            // `--` after a delimiter ends the body.
            if cursor + 1 < body.count, body[cursor] == 45, body[cursor + 1] == 45 { return parts }
            guard cursor + 1 < body.count, body[cursor] == 13, body[cursor + 1] == 10 else { return nil }
            cursor += 2
            guard let headerEnd = find([13, 10, 13, 10], in: body, from: cursor) else { return nil }
            let headerText = String(decoding: body[cursor..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let next = find([13, 10] + delimiter, in: body, from: contentStart) else { return nil }
            var part = BotFormPart(name: "", bytes: Array(body[contentStart..<next]))
            for line in headerText.components(separatedBy: "\r\n") {
                let pieces = line.split(separator: ":", maxSplits: 1)
                guard pieces.count == 2 else { continue }
                let name = pieces[0].lowercased()
                let value = pieces[1].trimmingCharacters(in: .whitespaces)
                if name == "content-disposition" {
                    part.name = parameter("name", in: value) ?? ""
                    part.fileName = parameter("filename", in: value)
                } else if name == "content-type" {
                    part.contentType = value
                }
            }
            guard !part.name.isEmpty else { return nil }
            parts.append(part)
            cursor = next + 2
        }
    }

    private static func parameter(_ key: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == key {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
