import MetrikaModel

/// Accumulates SVG lines; `\n` line ends so the file diffs well in goldens.
struct ChartSVGWriter {
    private(set) var text = ""

    mutating func line(_ content: String) {
        text += content
        text += "\n"
    }

    /// A `<text>` element; `content` is escaped here, `extra` is markup metrika wrote itself.
    mutating func text(_ content: String, x: Double, y: Double, size: Double, fill: String, extra: String = "") {
        line(
            "<text x=\"\(ChartNumber.coordinate(x))\" y=\"\(ChartNumber.coordinate(y))\" font-size=\"\(ChartNumber.coordinate(size))\" fill=\"\(fill)\"\(extra)>\(XMLEscape.text(content))</text>"
        )
    }
}
