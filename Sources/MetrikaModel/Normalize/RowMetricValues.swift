/// A row's metric values as `Double?`, read in place from its page's flat array (`StatDataRows`).
package struct RowMetricValues: RandomAccessCollection, Sendable {
    /// A null metric value in a page's flat array: a NaN no JSON number can be.
    package static let nullBits: UInt64 = 0x7FF8_0000_4E55_4C4C
    let values: ArraySlice<Double>
    package init(values: ArraySlice<Double>) { self.values = values }
    package var startIndex: Int { values.startIndex }
    package var endIndex: Int { values.endIndex }
    package subscript(position: Int) -> Double? {
        let value = values[position]
        return value.bitPattern == Self.nullBits ? nil : value
    }
}
