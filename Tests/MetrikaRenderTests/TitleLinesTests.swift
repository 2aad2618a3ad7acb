import Testing

@testable import MetrikaRender

/// Issue 48: a long counter name is cut in a narrow title (the bot's 38 columns), never its id.
@Suite struct TitleLinesTests {
    @Test func aLongNameIsCutBeforeItsCounterID() {
        let title =
            "Интернет-магазин «Очень длинное название для телефона» (3000001, very-long-site-name.example.ru)"
            + " · 2026-11-23 … 2026-11-29 · by day"
        let lines = ReportTableSink.titleLines(title, maxWidth: 38)
        #expect(lines.first?.hasSuffix("… (3000001)") == true, "\(lines)")
        #expect(lines.allSatisfy { $0.count <= 38 }, "\(lines)")
        // With room, the site stays.
        let roomy = ReportTableSink.titleLines("A long shop name for sure (1001, shop.ru) · 2026-11-23", maxWidth: 36)
        #expect(roomy.first == "A long shop name fo… (1001, shop.ru)", "\(roomy)")
        // A title that fits is untouched.
        #expect(ReportTableSink.titleLines("Shop (1001, shop.ru)", maxWidth: 38) == ["Shop (1001, shop.ru)"])
    }
}
