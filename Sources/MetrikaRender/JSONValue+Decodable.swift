/// Any JSON value from any decoder: a member whose shape is the receiver's to judge (JSON-RPC
/// `params`, a tool's arguments, an id). An object's members come in the decoder's key order;
/// MetrikaMCP's `JSONValueDecoder` hands over the parsed value itself, its order and repeats kept.
extension JSONValue: Decodable {
    package init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
                return
            }
            if let number = try? single.decode(Double.self) {
                self = .number(number)
                return
            }
            if let text = try? single.decode(String.self) {
                self = .string(text)
                return
            }
        }
        if var items = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !items.isAtEnd { values.append(try items.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let object = try decoder.container(keyedBy: MemberName.self)
        self = .object(try object.allKeys.map { ($0.stringValue, try object.decode(JSONValue.self, forKey: $0)) })
    }

    /// Any member name.
    private struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
