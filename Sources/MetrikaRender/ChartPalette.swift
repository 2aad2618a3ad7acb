/// The look of each line of a chart: a colour from the Okabe–Ito palette (designed to stay apart for
/// the common kinds of colour blindness), plus a dash pattern and a marker shape, so that lines also
/// stay apart in greyscale print and for readers who see no colour at all.
package struct ChartPalette: Sendable {
    /// One line's style.
    package struct Style: Hashable, Sendable {
        /// `#rrggbb`.
        package let color: String
        /// An SVG `stroke-dasharray` value, or nil for a solid line.
        package let dashArray: String?
        /// The marker drawn at the last value and in the legend.
        package let marker: Marker
    }

    /// Marker shapes, distinct in outline.
    package enum Marker: String, Hashable, Sendable, CaseIterable {
        case circle, square, triangle, diamond, triangleDown, cross
    }

    // Okabe–Ito, reordered so that the first colours differ most in lightness too (blue, vermillion,
    // bluish green, reddish purple, orange, sky blue, black); yellow is left out: it vanishes on white.
    static let colors = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
    // Solid first; dotted patterns are kept for the incomplete day, so series use dashes of other rhythms.
    static let dashes: [String?] = [nil, "9 4", "14 4 3 4", "5 5", "18 5", "9 3 3 3 3 3"]

    /// The style of the `index`-th line (0-based). Colour, dash and marker cycle with co-prime periods
    /// (7, 6, 6 shifted), so the first 42 lines are all different combinations.
    package static func style(at index: Int) -> Style {
        let markers = Marker.allCases
        return Style(
            color: colors[index % colors.count],
            dashArray: dashes[index % dashes.count],
            marker: markers[(index + index / markers.count) % markers.count]
        )
    }

    /// The pattern of a line's incomplete part (the current day): dots, unlike any series' dashes.
    package static let incompleteDashArray = "1.5 4"
}
