import Foundation
import Testing

@testable import MetrikaModel
@testable import MetrikaRender
@testable import MetrikaSystem
@testable import MetrikaUseCases

/// What a bad night over many counters looks like in a webhook and a mail: bounded.
@Suite struct AlertTextTests {
    struct FakeRasterizer: ChartRasterizer {
        func png(fromSVG svg: Data, scale: Double) throws -> Data { Data([0x89, 0x50, 0x4E, 0x47]) + svg.prefix(8) }
    }

    func findings(_ count: Int) -> [AlertCheck.Finding] {
        (0..<count).map { index in
            let counter = Counter(id: 300_000 + index, name: "Сайт номер \(index)", site: "s\(index).example")
            return AlertCheck.Finding(
                counter: counter, metric: .visits, goalName: nil,
                judgement: AlertJudgement(
                    day: day("2026-11-29"), value: 0, expected: 900, baselineDays: 6, score: -12, kind: .stopped,
                    since: day("2026-11-29")),
                notice: .alert(.stopped), recent: [(day("2026-11-29"), 0)], provisional: false)
        }
    }

    @Test func theWebhookTextFitsAChatMessageAndSaysHowManyMore() throws {
        let many = findings(200)
        let text = AlertText.summary(many)
        #expect(text.count <= AlertText.summaryLimit)
        let lines = text.split(separator: "\n")
        let shown = lines.filter { $0.hasPrefix("3") }.count
        let more = try #require(
            lines.last.flatMap { $0.hasPrefix("… and ") ? Int($0.dropFirst(6).prefix { $0.isNumber }) : nil })
        #expect(shown + more == 200)
        let body = try JSONSerialization.jsonObject(with: AlertText.webhookBody(many)) as? [String: Any]
        #expect((body?["alerts"] as? [Any])?.count == 200, "the list has every alert")
        // A few fit whole.
        #expect(!AlertText.summary(findings(3)).contains("more"))
        #expect(AlertText.summary(findings(3)).split(separator: "\n").count == 4)
    }

    @Test func aMailOfManyAlertsHasTwentyChartsAndEveryLine() async throws {
        let message = try await AlertMail.compose(
            findings(25), sender: try MIMEAddress("m@example.com"), recipients: [try MIMEAddress("o@example.com")],
            rasterizer: FakeRasterizer(), activity: RecordedActivity())
        let text = String(decoding: message.bytes(), as: UTF8.self)
        #expect(text.components(separatedBy: "Content-Type: image/png").count - 1 == AlertMail.maximumCharts)
        #expect(message.subject == "metrika: 25 alerts (Сайт номер 0, Сайт номер 1, Сайт номер 2 and 22 more)")
    }

    /// A counter's name is the server's text: in the subject (a mail header, a chat message's first
    /// line) no line break or terminal escape of it passes.
    @Test func theSubjectSanitizesTheServersNames() throws {
        var hostile = findings(1)
        hostile[0].counter = Counter(id: 300_000, name: "Shop\nInjected: line\u{1B}[2J", site: "s.example")
        let subject = AlertText.subject(hostile)
        #expect(!subject.contains("\n") && !subject.contains("\u{1B}"), "\(subject.debugDescription)")
        #expect(subject.hasPrefix("metrika: 1 alert (Shop"))
        #expect(!AlertText.summary(hostile).split(separator: "\n").contains { $0.hasPrefix("Injected") })
    }

    /// Slack reads `&`, `<`, `>` as control characters: a counter named `<!channel>` would ping a whole
    /// channel. For Slack the summary escapes them; for others (Telegram shows text as is) it does not.
    @Test func slackGetsItsControlCharactersEscapedAndOthersTheTextAsIs() throws {
        var hostile = findings(1)
        hostile[0].counter = Counter(id: 300_000, name: "<!channel> Tom & Jerry's", site: "s.example")
        func text(_ body: Data) throws -> String {
            try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["text"] as? String)
        }
        let slack = try text(AlertText.webhookBody(hostile, forSlack: true))
        #expect(slack.contains("&lt;!channel&gt; Tom &amp; Jerry's"), "\(slack)")
        #expect(!slack.contains("<") && !slack.contains(">"))
        let plain = try text(AlertText.webhookBody(hostile))
        #expect(plain.contains("<!channel> Tom & Jerry's"), "\(plain)")
        // The alerts list is data for programs: the name as the API gave it, either way.
        let alerts =
            (try JSONSerialization.jsonObject(with: AlertText.webhookBody(hostile, forSlack: true)) as? [String: Any])?[
                "alerts"] as? [[String: Any]]
        #expect(alerts?.first?["counter_name"] as? String == "<!channel> Tom & Jerry's")
    }
}
