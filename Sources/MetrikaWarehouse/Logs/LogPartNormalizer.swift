import Foundation
import MetrikaModel

/// Turns one Logs API part, as it really arrives, into ClickHouse `TabSeparated` rows (no header) in
/// the order of the requested fields, so that every value reaches ClickHouse as the API meant it.
/// docs/clickhouse.md lists the shapes and where each was reported:
///
/// - The header line names fields (`ym:s:visitID`), not columns. ClickHouse 20+ maps a
///   `TabSeparatedWithNames` header onto the columns (error 117, or from 23.x every column silently
///   loaded as its default): the header is checked against the requested fields and dropped here.
/// - The header may list the fields in another order than requested: rows are reordered.
/// - A string array arrives with its quotes escaped a second time (`[\'a\',\'b\']`), and one whose
///   element holds a double quote also wrapped in CSV quotes (`"[\'1/2""\']"`). Both are undone.
/// - A carriage return before the line feed and a byte order mark before the header are dropped.
/// - A part whose last row lacks its line feed gets one.
///
/// A row that still cannot be loaded (a field count unlike the header's, an array that is not one)
/// throws `LogRowProblem` naming the row and field, with its raw bytes; nothing is ever skipped.
/// Rows needing no change are copied as they are, chunk by chunk: memory stays bounded.
package final class LogPartNormalizer {
    let fields: [String]
    /// Per requested field: an array (the quoting quirks apply; an empty value is []).
    let stringArray: [Bool]
    /// Per requested field: what its text must look like for its column.
    let kinds: [ValueKind]

    /// The shape a value must have for ClickHouse to read it into its column's type. Checked here so
    /// that a value ClickHouse would refuse is reported with its part, row and field, as ours.
    enum ValueKind {
        case text, unsigned, signed, float, date, dateTime, array

        init(columnType type: String) {
            switch type {
            case let array where array.hasPrefix("Array("): self = .array
            case let unsigned where unsigned.hasPrefix("UInt"): self = .unsigned
            case let signed where signed.hasPrefix("Int"): self = .signed
            case let float where float.hasPrefix("Float"): self = .float
            case "Date": self = .date
            case "DateTime": self = .dateTime
            default: self = .text
            }
        }

        var name: String {
            switch self {
            case .text: "text"
            case .unsigned: "a whole number ≥ 0"
            case .signed: "a whole number"
            case .float: "a number"
            case .date: "a date (YYYY-MM-DD)"
            case .dateTime: "a date and time (YYYY-MM-DD hh:mm:ss)"
            case .array: "an array like [1,2] or ['a','b']"
            }
        }

        /// Whether `value` reads as this kind (an empty number is 0 to ClickHouse, an empty array []).
        func accepts(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
            func digits(_ range: Range<Int>) -> Bool { range.allSatisfy { value[$0] >= 48 && value[$0] <= 57 } }
            switch self {
            case .text:
                return true
            case .unsigned:
                return digits(0..<value.count)
            case .signed:
                return value.first == 45 ? value.count > 1 && digits(1..<value.count) : digits(0..<value.count)
            case .float:
                return value.allSatisfy {
                    ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 == 101 || $0 == 69 || $0 == 110
                        || $0 == 97 || $0 == 105 || $0 == 102
                }
            case .date:
                return value.count == 10 && value[4] == 45 && value[7] == 45 && digits(0..<4) && digits(5..<7)
                    && digits(8..<10)
            case .dateTime:
                return value.count == 19 && value[4] == 45 && value[7] == 45 && value[10] == 32 && value[13] == 58
                    && value[16] == 58
                    && digits(0..<4) && digits(5..<7) && digits(8..<10) && digits(11..<13) && digits(14..<16)
                    && digits(17..<19)
            case .array:
                return value.isEmpty || value.first == 91
            }
        }
    }
    /// Requested position → position in the part's rows; nil while the header matches the request.
    private var order: [Int]?
    private var headerSeen = false
    private var row = 0
    private var carry: [UInt8] = []
    private var output: [UInt8] = []
    private var bounds: [Range<Int>] = []

    package init(fields: [String]) {
        self.fields = fields
        kinds = fields.map { ValueKind(columnType: ClickHouseSchema.columnType($0)) }
        stringArray = kinds.map { $0 == .array }
        output.reserveCapacity(80 * 1024)
    }

    /// Rows seen so far (the header excluded).
    package var rows: Int { row }

    /// Takes the next bytes of the part; calls `emit` with normalized rows (possibly none).
    package func consume(_ chunk: [UInt8], emit: ([UInt8]) throws -> Void) throws {
        var start = 0
        if !carry.isEmpty {
            guard let newline = chunk.firstIndex(of: 10) else {
                carry.append(contentsOf: chunk)
                try checkCarry()
                return
            }
            carry.append(contentsOf: chunk[..<newline])
            let line = carry
            carry.removeAll(keepingCapacity: true)
            try line.withUnsafeBufferPointer { try handle($0) }
            start = newline + 1
        }
        try chunk.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            while start < buffer.count {
                guard let found = memchr(base + start, 10, buffer.count - start) else { break }
                let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                try handle(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end + 1
            }
        }
        if start < chunk.count {
            carry.append(contentsOf: chunk[start...])
            try checkCarry()
        }
        if !output.isEmpty {
            try emit(output)
            output.removeAll(keepingCapacity: true)
        }
    }

    /// `consume` for an upload that may suspend (`StreamWriter`): the chunk's rows are emitted once it
    /// is read.
    package func consume(_ chunk: [UInt8], emit: ([UInt8]) async throws -> Void) async throws {
        var rows: [UInt8]?
        try consume(chunk) { rows = $0 }
        if let rows { try await emit(rows) }
    }

    /// `finish` for an upload that may suspend.
    package func finish(emit: ([UInt8]) async throws -> Void) async throws {
        var rows: [UInt8]?
        try finish { rows = $0 }
        if let rows { try await emit(rows) }
    }

    /// The part ended: a last row without its line feed is taken too.
    package func finish(emit: ([UInt8]) throws -> Void) throws {
        if !carry.isEmpty {
            let line = carry
            carry.removeAll()
            try line.withUnsafeBufferPointer { try handle($0) }
        }
        guard headerSeen else {
            throw LogRowProblem(
                row: 0, field: nil, problem: "the part is empty: not even its header line of field names arrived",
                raw: [])
        }
        if !output.isEmpty {
            try emit(output)
            output.removeAll()
        }
    }

    /// A line longer than any real row (64 MiB) means the part has no line ends where it should.
    private func checkCarry() throws {
        if carry.count > 64 << 20 {
            throw LogRowProblem(
                row: row + 1, field: nil, problem: "no line end within 64 MiB",
                raw: Array(carry.prefix(LogRowProblem.rawLimit)))
        }
    }

    // MARK: - Lines

    private func handle(_ whole: UnsafeBufferPointer<UInt8>) throws {
        var line = whole
        if line.last == 13 { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
        guard headerSeen else { return try readHeader(line) }
        row += 1
        split(line)
        guard bounds.count == fields.count else {
            throw LogRowProblem(
                row: row, field: nil,
                problem:
                    "\(bounds.count) field\(bounds.count == 1 ? "" : "s") where the header names \(fields.count) (a tab or line break inside a value that the API did not escape)",
                raw: Array(line.prefix(LogRowProblem.rawLimit)))
        }
        for position in fields.indices where kinds[position] != .text && !stringArray[position] {
            let value = UnsafeBufferPointer(rebasing: line[bounds[order?[position] ?? position]])
            guard kinds[position].accepts(value) else {
                throw LogRowProblem(
                    row: row, field: fields[position], problem: "not \(kinds[position].name)",
                    raw: Array(value.prefix(LogRowProblem.rawLimit)))
            }
        }
        if order == nil, !needsRepair(line) {
            output.append(contentsOf: line)
            output.append(10)
            return
        }
        for position in fields.indices {
            if position > 0 { output.append(9) }
            let range = bounds[order?[position] ?? position]
            let value = UnsafeBufferPointer(rebasing: line[range])
            if stringArray[position] {
                try appendArray(value, field: position, line: line)
            } else {
                output.append(contentsOf: value)
            }
        }
        output.append(10)
    }

    private func readHeader(_ line: UnsafeBufferPointer<UInt8>) throws {
        var bytes = Array(line)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let names = bytes.split(separator: 9, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard names.count == fields.count, Set(names) == Set(fields) else {
            throw LogRowProblem(
                row: 0, field: nil,
                problem:
                    "its header line names \(names.count) field\(names.count == 1 ? "" : "s") that are not the \(fields.count) requested",
                raw: Array(bytes.prefix(LogRowProblem.rawLimit)))
        }
        if names != fields { order = fields.map { names.firstIndex(of: $0)! } }
        headerSeen = true
    }

    /// The ranges of the tab-separated fields of `line`, into `bounds`.
    private func split(_ line: UnsafeBufferPointer<UInt8>) {
        bounds.removeAll(keepingCapacity: true)
        var start = 0
        if let base = line.baseAddress {
            while let found = memchr(base + start, 9, line.count - start) {
                let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                bounds.append(start..<end)
                start = end + 1
            }
        }
        bounds.append(start..<line.count)
    }

    /// Whether an array of this row arrived double-escaped, CSV-quoted, empty or not as an array at all.
    private func needsRepair(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for position in fields.indices where stringArray[position] {
            let range = bounds[position]
            guard let first = range.first, line[first] == 91 else { return true }
            if range.count > 2, line[first + 1] == 92 { return true }
        }
        return false
    }

    // MARK: - Arrays

    /// Appends an array value as ClickHouse reads it: CSV quotes removed (`""` → `"`), then, when the
    /// element quotes are escaped (`[\'`), one level of escaping undone (`\'` → `'`, `\\` → `\`).
    private func appendArray(_ value: UnsafeBufferPointer<UInt8>, field: Int, line: UnsafeBufferPointer<UInt8>) throws {
        var text = Array(value)
        if text.first == 34 {
            guard text.count >= 2, text.last == 34 else {
                throw LogRowProblem(
                    row: row, field: fields[field], problem: "a quoted value without its closing quote",
                    raw: Array(line.prefix(LogRowProblem.rawLimit)))
            }
            var unquoted: [UInt8] = []
            unquoted.reserveCapacity(text.count)
            var index = 1
            while index < text.count - 1 {
                unquoted.append(text[index])
                index += text[index] == 34 && text[index + 1] == 34 && index + 1 < text.count - 1 ? 2 : 1
            }
            text = unquoted
        }
        if text.count > 2, text[0] == 91, text[1] == 92 {
            var unescaped: [UInt8] = []
            unescaped.reserveCapacity(text.count)
            var index = 0
            while index < text.count {
                if text[index] == 92, index + 1 < text.count, text[index + 1] == 39 || text[index + 1] == 92 {
                    unescaped.append(text[index + 1])
                    index += 2
                } else {
                    unescaped.append(text[index])
                    index += 1
                }
            }
            text = unescaped
        }
        if text.isEmpty { text = [91, 93] } // no elements
        guard text.first == 91, text.last == 93 else {
            throw LogRowProblem(
                row: row, field: fields[field], problem: "not an array like ['a','b']",
                raw: Array(value.prefix(LogRowProblem.rawLimit)))
        }
        output.append(contentsOf: text)
    }
}

/// A row of a part that cannot be loaded: which row (1-based, the header is row 0) and field, what is
/// wrong, and its first bytes. `LogExporter` adds the request and the part.
package struct LogRowProblem: Error, Sendable, Equatable {
    /// Raw bytes shown of a bad row.
    static let rawLimit = 200
    package var row: Int
    package var field: String?
    package var problem: String
    package var raw: [UInt8]

    /// One line for the user: the part as the progress line counts it (1-based, "part 2 of 3").
    package func message(request: Int, part: Int, of count: Int, naming: ParameterNaming = .neutral) -> String {
        let place = row == 0 ? "the header" : "row \(row)" + (field.map { ", field \($0)" } ?? "")
        // Tabs and line breaks shown as the escapes they would be, so a field count can be checked by eye.
        let visible = String(decoding: raw, as: UTF8.self).replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\r", with: "\\r")
        let bytes = raw.isEmpty ? "" : ": '\(TerminalText.quote(visible))'" + (raw.count >= Self.rawLimit ? "…" : "")
        return
            "log request \(request), part \(part) of \(count), \(place): \(problem)\(bytes). Nothing of that part reached the table; "
            + "the same command with \(naming[.output]) FILE instead of \(naming[.clickhouse]) saves the log exactly as the API sent it."
    }
}
