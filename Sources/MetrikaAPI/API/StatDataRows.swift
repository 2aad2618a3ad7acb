import MetrikaModel

/// The rows of one `/stat/v1/data` page, stored flat: every dimension value of every row in one
/// array, every metric value in another, and every dimension name's UTF-8 bytes packed into one
/// byte buffer.
///
/// A page of 20,000 rows held as `[WireDataRow]` is 40,000 small arrays and a `String` per name;
/// here it is four arrays and one buffer whatever the row count, and the names reach the CSV and
/// JSON output as `SharedText` pointing into the buffer, never as Strings (docs/performance.md).
/// Rows of any width are kept as the server sent them (a misfit row is the caller's to refuse).
struct StatDataRows: Sendable {
    /// Where a row ends in `names`/`ids` and in `metrics` (exclusive); a row starts where the one
    /// before it ends.
    struct End: Sendable, Equatable {
        var dimensions: UInt32
        var metrics: UInt32
    }

    /// A name's place in the byte buffer; `count == .max` for null.
    struct Slot: Sendable, Equatable {
        var start: UInt32
        var count: UInt32
        static let null = Slot(start: 0, count: .max)
    }

    private(set) var ends: [End] = []
    private(set) var names: [Slot] = []
    private(set) var ids: [String?] = []
    /// Every metric value, a null stored as `nullBits` (a NaN no JSON number can be): 8 bytes a value
    /// where `Double?` takes 16 (a 20,000-row page of six metrics: 0.96 MB instead of 1.9).
    private(set) var metrics: [Double] = []

    /// The bit pattern of a null metric: a quiet NaN with a payload; JSON has no NaN, and a NaN that
    /// arithmetic makes has payload 0.
    static let nullBits = RowMetricValues.nullBits
    /// The names' bytes while the page is read; moved into `buffer` by `finish()`.
    private var bytes: [UInt8] = []
    private(set) var buffer = SharedText.Buffer([])

    /// The number of rows.
    var count: Int { ends.count }

    // MARK: - Building

    /// Appends a name whose bytes are complete, valid UTF-8 (the caller checked or repaired them).
    mutating func appendName(validUTF8 name: UnsafeBufferPointer<UInt8>) {
        names.append(Slot(start: UInt32(bytes.count), count: UInt32(name.count)))
        bytes.append(contentsOf: name)
    }

    /// Appends a name that is a `String` (or null): the decoder's path.
    mutating func appendName(_ name: String?) {
        guard var name else { return names.append(.null) }
        name.withUTF8 { appendName(validUTF8: $0) }
    }

    mutating func appendID(_ id: String?) { ids.append(id) }

    mutating func appendMetric(_ value: Double?) { metrics.append(value ?? Double(bitPattern: Self.nullBits)) }

    /// After the first row: room for as many more rows as `bytesLeft` of the page could hold, each as
    /// wide as the first, so that the arrays never grow by doubling. Growing a 20,000-row page's
    /// metrics copied 2.4 MB into a fresh 4.7 MB buffer, both alive at once — most of a report's peak
    /// memory. The estimate is an upper bound (a row is at least 30 bytes of JSON); what it reserves
    /// beyond the rows that come is never written, so it costs address space, not resident memory.
    mutating func reserve(forBytesLeft bytesLeft: Int) {
        guard ends.count == 1, bytesLeft > 0 else { return }
        let rows = bytesLeft / 30 + 1
        let dimensions = Int(ends[0].dimensions)
        let metrics = Int(ends[0].metrics)
        ends.reserveCapacity(1 + rows)
        names.reserveCapacity(dimensions * (1 + rows))
        ids.reserveCapacity(dimensions * (1 + rows))
        self.metrics.reserveCapacity(metrics * (1 + rows))
        bytes.reserveCapacity(bytes.count + bytesLeft)
    }

    /// Ends the current row at the values appended so far.
    mutating func endRow() { ends.append(End(dimensions: UInt32(names.count), metrics: UInt32(metrics.count))) }

    /// The first dimension value and metric value of the row being built (to start it again when a
    /// member repeats: the last one wins, as in the decoder).
    var rowStart: End { ends.last ?? End(dimensions: 0, metrics: 0) }

    /// Drops the current row's dimension values (a repeated `dimensions` member).
    mutating func dropRowDimensions() {
        let start = Int(rowStart.dimensions)
        names.removeSubrange(start...)
        ids.removeSubrange(start...)
    }

    /// Drops the current row's metric values (a repeated `metrics` member).
    mutating func dropRowMetrics() { metrics.removeSubrange(Int(rowStart.metrics)...) }

    /// Drops every row (a repeated `data` member).
    mutating func removeAll() { self = StatDataRows() }

    /// Makes the byte buffer the names point into; call once, after the last row.
    mutating func finish() {
        buffer = SharedText.Buffer(bytes)
        bytes = []
    }

    // MARK: - Reading

    /// The range of row `row`'s dimension values and metric values.
    func bounds(of row: Int) -> (dimensions: Range<Int>, metrics: Range<Int>) {
        let start = row == 0 ? End(dimensions: 0, metrics: 0) : ends[row - 1]
        let end = ends[row]
        return (Int(start.dimensions)..<Int(end.dimensions), Int(start.metrics)..<Int(end.metrics))
    }

    /// Row `row`'s metric values, nulls as nil, without copying them.
    func metricValues(of row: Int) -> RowMetricValues {
        RowMetricValues(values: metrics[bounds(of: row).metrics])
    }

    /// Dimension value `index` (of the flat array), its name pointing into the buffer.
    func dimension(at index: Int) -> DimensionValue {
        let slot = names[index]
        let text = slot == .null ? nil : SharedText(buffer, start: Int(slot.start), count: Int(slot.count))
        return DimensionValue(nameText: text, id: ids[index])
    }
}
