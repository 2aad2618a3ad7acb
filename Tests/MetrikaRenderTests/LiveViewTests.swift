import Foundation
import MetrikaModel
import MetrikaTestSupport
import Testing

@testable import MetrikaRender

/// The screen of `metrika live` rendered to text: goldens at 80×24 and 120×40 (reviewed by eye), and
/// the rules every size keeps (width in terminal columns, no escapes without colour, the key list).
@Suite("LiveView")
struct LiveViewTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// A shop at 15:20 on Wed 2 Dec 2026 whose visits fell off at 13:00: usual hours ramp up to ~120
    /// around noon; 13:00 and 14:00 are at a third; the running 15:00 has a few.
    static func shop(name: String = "Сезонный магазин «Ёлка»") -> LiveSnapshot {
        let usual: [Double] = [
            20, 12, 8, 6, 6, 10, 24, 50, 80, 100, 110, 118, 120, 116, 110, 104, 100, 96, 90, 80, 70, 56, 40, 28
        ]
        let today: [Double] = [22, 10, 9, 5, 7, 12, 26, 47, 84, 97, 115, 121, 117, 40, 35, 9]
        let hours = (0..<24).map { hour in
            LiveSnapshot.Hour(
                hour: hour, visits: hour < today.count ? today[hour] : nil,
                band: LiveSnapshot.Band(low: usual[hour] * 0.8, median: usual[hour], high: usual[hour] * 1.2),
                running: hour == 15)
        }
        return LiveSnapshot(
            counterID: 515151, counterName: name, day: Day(year: 2026, month: 12, day: 2)!, clock: "15:20",
            hours: hours, visitsSoFar: today.reduce(0, +), expectedByNow: 1_184.7,
            verdict: .off(percent: -68, since: 13),
            goals: [
                LiveSnapshot.Goal(name: "Заказ оформлен", reaches: 31, expected: 44),
                LiveSnapshot.Goal(name: "Корзина", reaches: 120, expected: nil)
            ],
            lastData: "15:12", requestsToday: 14)
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func golden(width: Int, height: Int) throws {
        var view = LiveView(width: width, height: height, colour: false, shownBy: "metrika live")
        view.interactive = true
        view.count = 2
        let text = view.render(Self.shop()) + "\n"
        try Golden.expect(
            text, matches: Self.testsDirectory.appendingPathComponent("Golden/text/live-\(width)x\(height).txt"),
            describe: "got:\n\(text)")
    }

    @Test func plainSnapshotGolden() throws {
        let view = LiveView(width: 80, height: LiveView.snapshotHeight, colour: false, shownBy: "metrika live")
        let text = view.render(Self.shop()) + "\n"
        try Golden.expect(
            text, matches: Self.testsDirectory.appendingPathComponent("Golden/text/live-snapshot.txt"),
            describe: "got:\n\(text)")
    }

    @Test(arguments: [(80, 24), (120, 40), (56, 12), (57, 19), (200, 60)])
    func everyLineFitsTheScreen(width: Int, height: Int) {
        for name in [
            "Сезонный магазин «Ёлка» с очень длинным названием для проверки ширины", "東京の店舗カウンター・とても長い名前", "shop"
        ] {
            let lines = LiveView(width: width, height: height, colour: false, shownBy: "metrika live").lines(
                Self.shop(name: name))
            #expect(lines.count == height)
            for line in lines { #expect(displayWidth(of: line) <= width, "\(line)") }
        }
    }

    @Test func cyrillicNamesAreMeasuredInColumnsNotBytes() throws {
        let lines = LiveView(width: 80, height: 24, colour: false, shownBy: "metrika live").lines(Self.shop())
        let header = try #require(lines.first)
        // The date sits flush right whatever the name's bytes: 80 columns exactly.
        #expect(header.hasSuffix("Wed 2 Dec 15:20"))
        #expect(displayWidth(of: header) == 80)
    }

    @Test func colourOnlyWhenAsked() {
        let plain = LiveView(width: 80, height: 24, colour: false, shownBy: "metrika live").render(Self.shop())
        let coloured = LiveView(width: 80, height: 24, colour: true, shownBy: "metrika live").render(Self.shop())
        #expect(!plain.contains("\u{1B}"))
        #expect(coloured.contains("\u{1B}[31m\u{2212}68% since 13:00\u{1B}[0m"))
        // Colour adds escapes only: the same text remains.
        #expect(coloured.replacing(/\x1B\[[0-9;]*m/, with: "") == plain)
    }

    @Test func keyListReplacesTheChart() {
        var view = LiveView(width: 80, height: 24, colour: false, shownBy: "metrika live")
        view.showKeys = true
        let text = view.render(Self.shop())
        #expect(text.contains("r                  refresh now"))
        #expect(!text.contains("┤"))
    }

    @Test func aFailedRefreshIsTheLegendLine() {
        var view = LiveView(width: 80, height: 24, colour: false, shownBy: "metrika live")
        view.message = "Error: counter 515151: quota exceeded, try after 16:00"
        let lines = view.lines(Self.shop())
        #expect(lines[lines.count - 2] == "Error: counter 515151: quota exceeded, try after 16:00")
    }

    @Test func tooSmallSaysSo() {
        // One column short of the chart's 24 hours is too small too (review: 40 cut the late hours).
        #expect(
            LiveView(width: 55, height: 24, colour: false, shownBy: "metrika live").lines(Self.shop()).first?.hasPrefix(
                "Terminal too small") == true)
        #expect(
            LiveView(width: 56, height: 24, colour: false, shownBy: "metrika live").lines(Self.shop()).first?.hasPrefix(
                "Terminal too small") == false)
        let lines = LiveView(width: 30, height: 10, colour: false, shownBy: "metrika live").lines(Self.shop())
        #expect(lines.count >= 1 && lines.count <= 10)
        #expect(lines[0].hasPrefix("Terminal too small"))
        for line in lines { #expect(displayWidth(of: line) <= 30) }
    }

    /// Issue 40 item 11: at 40 columns the message was cut at `needs …`; it is wrapped whole.
    @Test(arguments: [(40, 24), (30, 10), (55, 12), (20, 8)])
    func theTooSmallMessageIsWrappedNotCut(width: Int, height: Int) {
        let lines = LiveView(width: width, height: height, colour: false, shownBy: "metrika live").lines(Self.shop())
        let text = lines.joined(separator: " ")
        #expect(text == "Terminal too small: metrika live needs 56×12 (this one is \(width)×\(height)).", "\(lines)")
        #expect(!text.contains("…"))
        for line in lines { #expect(displayWidth(of: line) <= width, "\(line)") }
    }

    /// Issue 40 item 11: at 60 columns the verdict read `−68% since …`; the words around the numbers
    /// give way and the verdict stays whole, at every width the view draws.
    @Test(arguments: [56, 58, 60, 62, 70])
    func theVerdictIsNeverCut(width: Int) throws {
        let lines = LiveView(width: width, height: 24, colour: false, shownBy: "metrika live").lines(Self.shop())
        let totals = try #require(lines.dropFirst().first)
        #expect(totals.hasSuffix(" · \u{2212}68% since 13:00"), "\(totals)")
        #expect(totals.hasPrefix("Visits "))
        #expect(!totals.contains("…") && displayWidth(of: totals) <= width, "\(totals)")
    }

    @Test func aWideScreenKeepsEveryWordOfTheTotals() throws {
        let totals = try #require(
            LiveView(width: 80, height: 24, colour: false, shownBy: "metrika live").lines(Self.shop()).dropFirst().first
        )
        #expect(totals == "Visits so far 756 · expected by now ~1 185 · \u{2212}68% since 13:00", "\(totals)")
    }

    @Test(arguments: [
        (0.5, 1.0), (1, 1), (7, 8), (11, 15), (144, 150), (201, 250), (251, 300), (1_184, 1_500), (9_001, 10_000)
    ])
    func niceCeiling(value: Double, expected: Double) {
        #expect(LiveView.niceCeiling(value) == expected)
    }

    @Test(arguments: [
        (LiveSnapshot.Verdict.onTrack, "on track"), (.off(percent: -40, since: 14), "\u{2212}40% since 14:00"),
        (.off(percent: 25, since: 9), "+25% since 09:00"), (.off(percent: -18, since: nil), "\u{2212}18% today"),
        (.noBaseline, "no history to compare with"), (.noData, "no data yet")
    ])
    func verdictText(verdict: LiveSnapshot.Verdict, text: String) {
        #expect(verdict.text == text)
    }
}
