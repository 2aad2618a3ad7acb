import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaRender
@testable import MetrikaSystem

/// Issue 24 item 16: CJK counter names were empty boxes in PNG charts (setup installed only DejaVu).
/// A missing glyph is drawn as the same box whatever the character, so a string of many-stroke
/// characters and a string of `一` (one stroke) paint about the same share of the image; real glyphs
/// paint more than twice as much for the first. rsvg-convert draws both in the chart's font stack.
@Suite(.ownThreads) struct CJKGlyphTests {
    /// The share of painted (not near-white) pixels of `text` drawn 48 px high in the chart's fonts.
    static func paintedShare(_ text: String) async throws -> Double {
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="400" height="80" font-family="\(SVGLineChart.fontStack)">\
            <rect width="400" height="80" fill="#fff"/><text x="10" y="60" font-size="48">\(XMLEscape.text(text))</text></svg>
            """
        let png = try await RSVGConvertRasterizer(environment: ["PATH": "/usr/bin:/bin"]).png(
            fromSVG: Data(svg.utf8), scale: 1)
        let directory = try ChartTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("text.png")
        try png.write(to: file)
        let result = try ChartTestSupport.runPython("png_stats.py", [file.path])
        try #require(result.status == 0, "png_stats.py: \(result.stderr)")
        let data = result.stdout
        let stats = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try #require(stats?["paintedShare"] as? Double)
    }

    @Test(
        .enabled(
            if: ChartRasterizerTests.hasRSVGConvert,
            "needs rsvg-convert (apt-get install librsvg2-bin); .ci/run installs it"))
    func cjkNamesAreDrawnAsGlyphsNotBoxes() async throws {
        let dense = try await Self.paintedShare("東京ラーメン")
        let thin = try await Self.paintedShare("一一一一一一")
        // Boxes: about 1 (the same box six times either way). Glyphs (Noto Sans CJK): about 2.3.
        #expect(
            dense / thin > 1.6,
            "東京ラーメン paints \(dense), 一×6 \(thin): CJK text is drawn as boxes — install fonts-noto-cjk (scripts/setup)")
    }

    @Test func theFontStackNamesACJKFont() async {
        #expect(SVGLineChart.fontStack.contains("Noto Sans CJK"))
    }
}
