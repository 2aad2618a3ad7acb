import Foundation
import MetrikaModel

/// Decoding that tolerates what real Metrika answers contain: integers sent as floats (`41.0`),
/// booleans sent as `0`/`1`, numbers sent as strings, and `null` where a value is missing.
extension KeyedDecodingContainer {
    /// An integer from `41`, `41.0` or `"41"`; nil when absent or null.
    func flexibleInt(_ key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Int.self, forKey: key) { return value }
        if let value = try? decode(Double.self, forKey: key), value.isFinite, value.rounded() == value,
            abs(value) < 9e15
        {
            return Int(value)
        }
        if let text = try? decode(String.self, forKey: key), let value = Int(text) { return value }
        throw DecodingError.typeMismatch(
            Int.self, .init(codingPath: codingPath + [key], debugDescription: "expected an integer"))
    }

    /// A boolean from `true`/`false`, `0`/`1` or `"0"`/`"1"`; nil when absent or null.
    func flexibleBool(_ key: Key) throws -> Bool? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Bool.self, forKey: key) { return value }
        if let value = try? decode(Double.self, forKey: key) { return value != 0 }
        if let text = try? decode(String.self, forKey: key) { return text == "1" || text.lowercased() == "true" }
        throw DecodingError.typeMismatch(
            Bool.self, .init(codingPath: codingPath + [key], debugDescription: "expected a boolean"))
    }

    /// A string; numbers are turned into their text (ids sometimes arrive as numbers); nil when absent or null.
    func flexibleString(_ key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(String.self, forKey: key) { return value }
        if let value = try? decode(Int.self, forKey: key) { return String(value) }
        if let value = try? decode(Double.self, forKey: key) { return String(value) }
        if let value = try? decode(Bool.self, forKey: key) { return String(value) }
        throw DecodingError.typeMismatch(
            String.self, .init(codingPath: codingPath + [key], debugDescription: "expected a string"))
    }
}

/// A metric value as the Reporting API sends it: a number, `null`, or (tolerated) a numeric string.
/// Non-finite values ("NaN", "Infinity") are refused: no number metrika shows may be invented.
struct WireNumber: Decodable, Sendable, Equatable {
    let value: Double?

    init(value: Double?) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            value = nil
            return
        }
        if let number = try? container.decode(Double.self) {
            guard number.isFinite else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a metric value is not a finite number")
            }
            value = number
            return
        }
        if let text = try? container.decode(String.self) {
            guard let number = Double(text), number.isFinite else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a metric value is the text '\(text.prefix(20))', not a number")
            }
            value = number
            return
        }
        throw DecodingError.dataCorruptedError(
            in: container, debugDescription: "a metric value is neither a number nor null")
    }
}

/// Turns a decoding failure into one line a person can read (no Swift type dumps). The details may
/// quote the answer (a metric's text), so the result is forced onto one line.
func describeDecodingFailure(_ error: any Error) -> String {
    MetrikaClient.oneLine(describeDecodingFailureDetail(error))
}

private func describeDecodingFailureDetail(_ error: any Error) -> String {
    guard let decodingError = error as? DecodingError else {
        // Never another value's description (a Swift or NSError dump): a sentence.
        return UnexpectedFailure.reason(error)
    }
    func path(_ context: DecodingError.Context) -> String {
        let parts = context.codingPath.map { key -> String in
            if let index = key.intValue { return "[\(index)]" }
            return "." + key.stringValue
        }
        let joined = parts.joined()
        return joined.isEmpty ? "the top level" : String(joined.drop(while: { $0 == "." }))
    }
    switch decodingError {
    case .dataCorrupted(let context):
        if context.codingPath.isEmpty { return "the body is not valid JSON" }
        return "\(context.debugDescription) at \(path(context))"
    case .keyNotFound(let key, let context):
        return "the field '\(key.stringValue)' is missing at \(path(context))"
    case .typeMismatch(_, let context):
        return "a value has the wrong type at \(path(context))"
    case .valueNotFound(_, let context):
        return "a value is null at \(path(context))"
    @unknown default:
        return "the JSON does not have the documented shape"
    }
}
