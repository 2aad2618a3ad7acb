import Foundation

/// A fast, strict reader for the one document metrika reads in bulk: a `/stat/v1/data` page.
///
/// Foundation's `JSONDecoder` spends most of a 100,000-row report building and then tearing down a
/// generic tree. This scanner walks the bytes once and builds the rows directly. It accepts only the
/// plain documented shape (numbers or null as metric values, strings or null as dimension names and
/// ids; unknown keys skipped); on anything else it gives up and returns nil, and the caller decodes
/// the page with `JSONDecoder`, whose tolerant rules and error messages stay the single source of
/// truth. Invalid UTF-8 inside strings and lone surrogate escapes are repaired to U+FFFD, as the
/// decoder path does. Nesting deeper than `JSONPreflight.maxDepth` is refused, not recursed into:
/// a million brackets must not overflow the stack.
struct StatDataScanner {
    private struct GiveUp: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// The page's rows as they are read, names packed into one buffer.
    private var rows = StatDataRows()
    private var depth = 0
    private let maxDepth: Int

    private init(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// The page, or nil when the document is not in the plain shape this scanner handles; throws
    /// when it nests deeper than `maxDepth` (then no parser may have it).
    static func scan(_ data: Data, maxDepth: Int = JSONPreflight.maxDepth) throws(JSONPreflight.TooDeep)
        -> StatDataPage?
    {
        let outcome = data.withUnsafeBytes { raw -> Result<StatDataPage?, JSONPreflight.TooDeep> in
            var scanner = StatDataScanner(raw, maxDepth: maxDepth)
            do {
                return .success(try scanner.page())
            } catch let tooDeep as JSONPreflight.TooDeep {
                return .failure(tooDeep)
            } catch {
                return .success(nil)
            }
        }
        return try outcome.get()
    }

    /// Enters one level of nesting (the caller leaves it with `depth -= 1`).
    private mutating func enterLevel() throws {
        depth += 1
        if depth > maxDepth { throw JSONPreflight.TooDeep(limit: maxDepth) }
    }

    // MARK: - The document

    private mutating func page() throws -> StatDataPage {
        var sawData = false
        var totalRows: Int?
        var sampled = false
        var sampleShare: Double?
        var sampleSize: Double?
        var sampleSpace: Double?
        var dataLag: Double?
        var totals: [Double?] = []
        var queryMetrics: [String] = []
        var queryDimensions: [String] = []
        var queryCurrency: String?
        var queryAttribution: String?
        try object { scanner, key in
            switch key {
            case "data":
                // A repeated member: the last one wins, as in the decoder.
                scanner.rows.removeAll()
                try scanner.array { try $0.row() }
                sawData = true
            case "total_rows":
                guard let value = try scanner.number(), value >= 0, value < 1e15, value.rounded() == value else {
                    throw GiveUp()
                }
                totalRows = Int(value)
            case "sampled": sampled = try scanner.boolean()
            case "sample_share": sampleShare = try scanner.number()
            case "sample_size": sampleSize = try scanner.number()
            case "sample_space": sampleSpace = try scanner.number()
            case "data_lag": dataLag = try scanner.number()
            case "totals": totals = try scanner.array { try $0.number() }
            case "query":
                try scanner.object { scanner, key in
                    switch key {
                    case "metrics": queryMetrics = try scanner.array { try $0.stringOrNull() ?? "" }
                    case "dimensions": queryDimensions = try scanner.array { try $0.stringOrNull() ?? "" }
                    case "currency": queryCurrency = try scanner.stringOrNull()
                    case "attribution": queryAttribution = try scanner.stringOrNull()
                    default: try scanner.skipValue()
                    }
                }
            default: try scanner.skipValue()
            }
        }
        skipSpace()
        guard index == bytes.count, sawData else { throw GiveUp() }
        rows.finish()
        return StatDataPage(
            table: rows, totalRows: totalRows ?? rows.count, sampled: sampled, sampleShare: sampleShare,
            sampleSize: sampleSize, sampleSpace: sampleSpace, dataLag: dataLag, totals: totals,
            queryMetrics: queryMetrics, queryDimensions: queryDimensions, queryCurrency: queryCurrency,
            queryAttribution: queryAttribution)
    }

    /// One row, appended to `rows`: its dimension names (bytes, see `name()`) and ids, its metrics.
    private mutating func row() throws {
        var sawDimensions = false
        var sawMetrics = false
        try object { scanner, key in
            switch key {
            case "dimensions":
                scanner.rows.dropRowDimensions()
                try scanner.array { scanner in
                    // The name goes into the buffer when it is read; a repeated `name` member
                    // (the last one wins) is rare enough to take the decoder's path.
                    var names = 0
                    var id: String?
                    try scanner.object { scanner, key in
                        switch key {
                        case "name":
                            names += 1
                            guard names == 1 else { throw GiveUp() }
                            try scanner.name()
                        case "id": id = try scanner.stringOrNull()
                        default: try scanner.skipValue()
                        }
                    }
                    if names == 0 { scanner.rows.appendName(nil) }
                    scanner.rows.appendID(id)
                }
                sawDimensions = true
            case "metrics":
                scanner.rows.dropRowMetrics()
                try scanner.array { scanner in scanner.rows.appendMetric(try scanner.number()) }
                sawMetrics = true
            default: try scanner.skipValue()
            }
        }
        guard sawDimensions, sawMetrics else { throw GiveUp() }
        rows.endRow()
        if rows.count == 1 { rows.reserve(forBytesLeft: bytes.count - index) }
    }

    /// A dimension name (a string or null) appended to `rows`. A JSON string without escapes whose
    /// bytes are valid UTF-8 — nearly every name — is copied into the page's name buffer as it is,
    /// with no `String` made; anything else is decoded by `string()`, which repairs invalid UTF-8
    /// and lone surrogates to U+FFFD, and its text stored. Both give the text `string()` gives.
    private mutating func name() throws {
        switch try peek() {
        case UInt8(ascii: "\""):
            let quote = index
            index += 1
            let start = index
            var high: UInt8 = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let run = UnsafeRawBufferPointer(rebasing: bytes[start..<index]).assumingMemoryBound(to: UInt8.self)
                    // ASCII needs no check; anything else must be well-formed to be kept as it is.
                    guard high < 0x80 || UTF8Check.isValid(run) else { break }
                    rows.appendName(validUTF8: run)
                    index += 1
                    return
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw GiveUp() }
                high |= byte
                index += 1
            }
            index = quote
            rows.appendName(try string())
        case UInt8(ascii: "n"):
            try literal("null")
            rows.appendName(nil)
        default:
            throw GiveUp()
        }
    }

    // MARK: - JSON pieces

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The next significant byte (not consumed); gives up at the end of input.
    private mutating func peek() throws -> UInt8 {
        skipSpace()
        guard index < bytes.count else { throw GiveUp() }
        return bytes[index]
    }

    private mutating func consume(_ byte: UInt8) throws {
        guard try peek() == byte else { throw GiveUp() }
        index += 1
    }

    private mutating func object(_ member: (inout StatDataScanner, String) throws -> Void) throws {
        try consume(UInt8(ascii: "{"))
        try enterLevel()
        defer { depth -= 1 }
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            guard try peek() == UInt8(ascii: "\"") else { throw GiveUp() }
            let key = try string()
            try consume(UInt8(ascii: ":"))
            try member(&self, key)
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw GiveUp() }
        }
    }

    /// An array whose elements `element` reads and keeps itself (no array is built).
    private mutating func array(_ element: (inout StatDataScanner) throws -> Void) throws {
        try consume(UInt8(ascii: "["))
        try enterLevel()
        defer { depth -= 1 }
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try element(&self)
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw GiveUp() }
        }
    }

    private mutating func array<T>(_ element: (inout StatDataScanner) throws -> T) throws -> [T] {
        try consume(UInt8(ascii: "["))
        try enterLevel()
        defer { depth -= 1 }
        var result: [T] = []
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return result
        }
        while true {
            result.append(try element(&self))
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "]") { return result }
            guard next == UInt8(ascii: ",") else { throw GiveUp() }
        }
    }

    private mutating func literal(_ text: StaticString) throws {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw GiveUp() }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { throw GiveUp() }
        index += count
    }

    private mutating func boolean() throws -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        default:
            // 0/1 and other spellings: leave them to the tolerant decoder.
            throw GiveUp()
        }
    }

    private mutating func stringOrNull() throws -> String? {
        switch try peek() {
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "n"):
            try literal("null")
            return nil
        default: throw GiveUp()
        }
    }

    /// A JSON number or null. Numbers with at most 15 significant digits and a small decimal exponent
    /// are computed exactly (an exact integer divided or multiplied by an exact power of ten rounds
    /// correctly); anything else goes through the standard library's correctly rounded parser.
    private mutating func number() throws -> Double? {
        let first = try peek()
        if first == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        let start = index
        var negative = false
        if first == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var integerDigits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            mantissa = mantissa &* 10 &+ UInt64(bytes[index] - 0x30)
            digits += mantissa == 0 ? 0 : 1
            integerDigits += 1
            index += 1
        }
        guard integerDigits > 0 else { throw GiveUp() }
        if integerDigits > 1 && bytes[start + (negative ? 1 : 0)] == 0x30 { throw GiveUp() } // leading zero
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[index] - 0x30)
                if mantissa != 0 { digits += 1 }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { throw GiveUp() }
        }
        var hasExponent = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            hasExponent = true
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            var exponentDigits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0, exponentDigits <= 3 else { throw GiveUp() }
        }
        if !hasExponent, digits <= 15, integerDigits + fractionDigits <= 19, fractionDigits <= 22 {
            var value = Double(mantissa)
            if fractionDigits > 0 { value /= Self.powersOfTen[fractionDigits] }
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // Overflow and underflow to zero are the decoder's to report.
        guard let value = Double(text), value.isFinite, value != 0 || digits == 0 else { throw GiveUp() }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// A JSON string (the opening quote not yet consumed).
    private mutating func string() throws -> String {
        try consume(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw GiveUp() }
            index += 1
        }
        // Escapes: build the UTF-8 bytes.
        var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw GiveUp() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A pair is two escapes in a row; a high surrogate without its low one is
                        // no character: U+FFFD, and what follows is read on its own.
                        if let low = lowSurrogateEscape() {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalar = 0xFFFD
                        }
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        scalar = 0xFFFD
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw GiveUp() }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw GiveUp()
                }
            default:
                guard byte >= 0x20 else { throw GiveUp() }
                utf8.append(byte)
            }
        }
        throw GiveUp()
    }

    /// Consumes `\\uDC00`…`\\uDFFF` when it comes next and returns its value; else consumes nothing.
    private mutating func lowSurrogateEscape() -> UInt32? {
        guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
            return nil
        }
        let start = index
        index += 2
        guard let low = try? hex4(), (0xDC00...0xDFFF).contains(low) else {
            index = start
            return nil
        }
        return low
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw GiveUp() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw GiveUp()
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Skips any JSON value (unknown keys): strings, numbers, literals, nested arrays and objects.
    private mutating func skipValue() throws {
        switch try peek() {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"): try object { scanner, _ in try scanner.skipValue() }
        case UInt8(ascii: "["): try array { try $0.skipValue() }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try number()
        }
    }
}
