/// One unit of the stdio transport: a line (without its line end), or the news that a line longer
/// than the cap was skipped (its bytes were never kept).
package enum MCPFrame: Sendable, Equatable {
    case line([UInt8])
    case tooLong
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
                    buffer = []
                } else {
                    buffer.append(contentsOf: piece)
                }
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
        }
        if discarding { return .tooLong }
        if buffer.last == 0x0D { buffer.removeLast() }
        if buffer.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        return .line(buffer)
    }
}
