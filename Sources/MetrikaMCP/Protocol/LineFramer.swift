/// One unit of the stdio transport: a line (without its line end), or the news that a line longer
/// than the cap was skipped (its bytes were never kept, but for its first and last few kilobytes,
/// where a request's `id` is: `idText` is its JSON text when it could be read there, so the error
/// answers that request and its client stops waiting).
package enum MCPFrame: Sendable, Equatable {
    case line([UInt8])
    case tooLong(idText: String?)
}

/// Cuts the bytes of stdin into newline-delimited messages, holding at most `maxLineBytes` of one
/// line: a longer one is dropped as it arrives and reported once as `.tooLong`, so a client (or a
/// stray `cat` of a large file) cannot make the server buffer without bound. Blank lines are skipped;
/// a `\r` before the `\n` is dropped.
package struct LineFramer {
    /// 4 MB: far above any request MCP clients send, far below what would hurt.
    package static let defaultMaxLineBytes = 4 << 20

    package let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    /// A skipped line's first and last bytes (at most `edgeBytes` each), for its id.
    private var head: [UInt8] = []
    private var tail: [UInt8] = []
    static let edgeBytes = 4_096

    package init(maxLineBytes: Int = defaultMaxLineBytes) {
        self.maxLineBytes = maxLineBytes
    }

    /// The frames completed by `chunk`.
    package mutating func feed<Bytes: Collection<UInt8>>(_ chunk: Bytes) -> [MCPFrame] {
        var frames: [MCPFrame] = []
        var rest = chunk[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: 0x0A)
            let piece = rest[..<(newline ?? rest.endIndex)]
            if !discarding {
                if buffer.count + piece.count > maxLineBytes {
                    discarding = true
                    head = Array((buffer + piece.prefix(Self.edgeBytes)).prefix(Self.edgeBytes))
                    tail = Array(piece.suffix(Self.edgeBytes))
                    buffer = []
                } else {
                    buffer.append(contentsOf: piece)
                }
            } else {
                tail = Array((tail + piece.suffix(Self.edgeBytes)).suffix(Self.edgeBytes))
            }
            guard let newline else { break }
            if let frame = endLine() { frames.append(frame) }
            rest = rest[rest.index(after: newline)...]
        }
        return frames
    }

    /// At the end of input: the last line when it had no line end.
    package mutating func finish() -> [MCPFrame] {
        endLine().map { [$0] } ?? []
    }

    private mutating func endLine() -> MCPFrame? {
        defer {
            buffer = []
            discarding = false
            head = []
            tail = []
        }
        if discarding { return .tooLong(idText: RequestIDScan.id(head: head, tail: tail)) }
        if buffer.last == 0x0D { buffer.removeLast() }
        if buffer.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        return .line(buffer)
    }
}

/// The `id` of a JSON-RPC request line that is too long to parse, read from its edges: among the
/// members before the first object or array (`{"jsonrpc":"2.0","id":7,"method":…`), or as the last
/// member (`…,"jsonrpc":"2.0","id":7}`, as the official SDKs write it). Only a string or a number.
enum RequestIDScan {
    static func id(head: [UInt8], tail: [UInt8]) -> String? {
        fromHead(head) ?? fromTail(tail)
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }

    /// The end (exclusive) of the string starting at `start` (a quote), or nil when it does not end.
    static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == UInt8(ascii: "\"") { return index + 1 }
            index += 1
        }
        return nil
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
            || byte == UInt8(ascii: "E")
    }

    /// A byte of a number or of `true`, `false`, `null`.
    static func isScalarByte(_ byte: UInt8) -> Bool {
        isNumberByte(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    static func fromHead(_ bytes: [UInt8]) -> String? {
        var index = 0
        func skipSpace() { while index < bytes.count, isSpace(bytes[index]) { index += 1 } }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let keyEnd = stringEnd(bytes, from: index)
            else { return nil }
            let key = bytes[index..<keyEnd]
            index = keyEnd
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace()
            guard index < bytes.count else { return nil }
            let valueStart = index
            if bytes[index] == UInt8(ascii: "\"") {
                guard let end = stringEnd(bytes, from: index) else { return nil }
                index = end
            } else if isScalarByte(bytes[index]) {
                while index < bytes.count, isScalarByte(bytes[index]) { index += 1 }
            } else {
                return nil
            }
            if Array(key) == Array("\"id\"".utf8) {
                let text = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                let isNumber = bytes[valueStart..<index].allSatisfy(isNumberByte)
                return text.first == "\"" || isNumber ? text : nil
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    static func fromTail(_ bytes: [UInt8]) -> String? {
        var index = bytes.count - 1
        func skipSpace() { while index >= 0, isSpace(bytes[index]) { index -= 1 } }
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: "}") else { return nil }
        index -= 1
        skipSpace()
        guard index >= 0 else { return nil }
        let valueEnd = index + 1
        if bytes[index] == UInt8(ascii: "\"") {
            // Back to the opening quote: the first quote not escaped by an odd run of backslashes.
            index -= 1
            while index >= 0 {
                if bytes[index] == UInt8(ascii: "\"") {
                    var slashes = 0
                    while index - 1 - slashes >= 0, bytes[index - 1 - slashes] == UInt8(ascii: "\\") { slashes += 1 }
                    if slashes % 2 == 0 { break }
                }
                index -= 1
            }
            guard index >= 0 else { return nil }
        } else {
            while index >= 0, isNumberByte(bytes[index]) { index -= 1 }
            index += 1
            guard index < valueEnd else { return nil }
        }
        let valueStart = index
        index -= 1
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: ":") else { return nil }
        index -= 1
        skipSpace()
        let key = Array("\"id\"".utf8)
        guard index - 3 >= 0, Array(bytes[(index - 3)...index]) == key else { return nil }
        index -= 4
        skipSpace()
        guard index >= 0, bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: "{") else { return nil }
        return String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
    }
}
