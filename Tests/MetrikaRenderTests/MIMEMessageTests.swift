import Foundation
import MetrikaTestSupport
import Testing

@testable import MetrikaRender
@testable import MetrikaSystem

@Suite("MIME messages", .ownThreads)
struct MIMEMessageTests {
    typealias S = ChartTestSupport

    // MARK: - Encodings, worked by hand

    static let quotedPrintableCases: [(String, String)] = [
        ("plain text", "plain text"),
        ("a=b", "a=3Db"),
        ("Привет", "=D0=9F=D1=80=D0=B8=D0=B2=D0=B5=D1=82"),
        ("trailing space ", "trailing space=20"),
        ("tab\t", "tab=09"),
        ("line1\nline2\r\nline3", "line1\r\nline2\r\nline3"),
        (".dot", "=2Edot"),
        ("From here", "=46rom here"),
        ("not From", "not From"),
        ("", "")
    ]

    @Test(arguments: quotedPrintableCases)
    func quotedPrintable(_ input: String, _ expected: String) {
        #expect(MIMEEncoding.quotedPrintable(input) == expected)
    }

    @Test func quotedPrintableKeepsLinesWithin76AndNeverSplitsAnEscape() {
        #expect(
            MIMEEncoding.quotedPrintable(String(repeating: "a", count: 100)) == String(repeating: "a", count: 75)
                + "=\r\n" + String(repeating: "a", count: 25))
        // 76 characters exactly fit on one line when nothing follows.
        #expect(MIMEEncoding.quotedPrintable(String(repeating: "b", count: 76)) == String(repeating: "b", count: 76))
        let cyrillic = MIMEEncoding.quotedPrintable(String(repeating: "ж", count: 40))
        for line in cyrillic.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 76)
            #expect(line.hasSuffix("=") || line.hasSuffix("=B6"), "escape split: \(line)")
        }
    }

    @Test func base64LinesAre76Characters() {
        let text = MIMEEncoding.base64Lines(Data((0..<100).map { UInt8($0) }))
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.map(\.count) == [76, 60])
        #expect(lines[0] == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4")
        #expect(Data(base64Encoded: lines.joined()) == Data((0..<100).map { UInt8($0) }))
    }

    @Test func encodedWordsStayWithin75AndSplitBetweenCharacters() throws {
        let subject = "Отчёт за неделю: визиты и отказы по счётчику «Блог о кофе» ☕️ 👩‍💻"
        let words = MIMEEncoding.encodedWords(subject, firstWordLimit: 60)
        #expect(words.count > 1)
        var decoded = ""
        for word in words {
            #expect(word.count <= (word == words[0] ? 60 : 75))
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
            // Each word must be valid UTF-8 on its own (RFC 2047 §5: no character split across words).
            let piece = try #require(String(data: payload, encoding: .utf8))
            decoded += piece
        }
        #expect(decoded == subject)
    }

    @Test func headersFoldWithin78() {
        let header = MIMEEncoding.unstructuredHeader("Subject", value: String(repeating: "word ", count: 40))
        for line in header.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 76) }
        let encoded = MIMEEncoding.unstructuredHeader("Subject", value: String(repeating: "Отчёт ", count: 20))
        for line in encoded.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 76) }
        #expect(header.hasPrefix("Subject: word word"))
        #expect(header.components(separatedBy: "\r\n").dropFirst().allSatisfy { $0.hasPrefix(" ") })
    }

    @Test func theDateHeaderIsRFC5322() {
        let noon = Date(timeIntervalSince1970: 1_795_953_600) // 2026-11-29 12:00:00 UTC, a Sunday
        #expect(MIMEEncoding.dateHeaderValue(noon, offsetSeconds: 0) == "Sun, 29 Nov 2026 12:00:00 +0000")
        #expect(MIMEEncoding.dateHeaderValue(noon, offsetSeconds: 3 * 3600) == "Sun, 29 Nov 2026 15:00:00 +0300")
        #expect(MIMEEncoding.dateHeaderValue(noon, offsetSeconds: -13 * 3600) == "Sat, 28 Nov 2026 23:00:00 -1300")
        #expect(
            MIMEEncoding.dateHeaderValue(Date(timeIntervalSince1970: 0), offsetSeconds: 0)
                == "Thu, 1 Jan 1970 00:00:00 +0000")
    }

    @Test func nonASCIIFileNamesUseRFC2231() {
        #expect(MIMEEncoding.parameter("filename", value: "visits.svg") == ["filename=\"visits.svg\""])
        #expect(MIMEEncoding.parameter("filename", value: "a \"b\".svg") == ["filename=\"a \\\"b\\\".svg\""])
        #expect(MIMEEncoding.parameter("filename", value: "ж.svg") == ["filename*=UTF-8''%D0%B6.svg"])
        let long = MIMEEncoding.parameter("filename", value: String(repeating: "ж", count: 20) + ".svg")
        #expect(long.count > 1)
        #expect(long[0].hasPrefix("filename*0*=UTF-8''%D0%B6"))
        #expect(long[1].hasPrefix("filename*1*=%"))
    }

    // MARK: - Addresses

    /// Local addresses (a dot-less host: `root@localhost`, `alice@vm`) are the usual cron targets.
    static let validAddresses = [
        "a@example.com", "first.last+tag@mail.example.org", "o'brien@x-y.example", "x@a.b", "root@localhost", "alice@vm"
    ]
    static let invalidAddresses = [
        "", "plain", "@example.com", "a@", "a@.", "a@vm.", "a@.vm", "a@_vm", "a@-vm", "a@vm-", "a b@example.com",
        "a@exa mple.com", "a..b@example.com",
        "a@-example.com", "a@example.com\r\nBcc: evil@example.com", "<a@example.com", "a@b@example.com"
    ]

    @Test(arguments: validAddresses)
    func acceptsAddresses(_ text: String) throws {
        #expect(try MIMEAddress(parsing: text).address == text)
    }

    @Test(arguments: invalidAddresses)
    func rejectsAddressesAsAUsageError(_ text: String) {
        #expect(throws: MIMEAddress.InvalidAddress.self) { try MIMEAddress(parsing: text) }
        #expect(MIMEAddress.InvalidAddress(text: text).exitCode == 64)
    }

    @Test func parsesDisplayNamesAndLists() throws {
        let list = try MIMEAddress.list(
            parsing: "Иван Петров <ivan@example.com>, \"Doe, Jane\" <jane@example.org> ,bob@example.net")
        #expect(list.map(\.address) == ["ivan@example.com", "jane@example.org", "bob@example.net"])
        #expect(list.map(\.displayName) == ["Иван Петров", "Doe, Jane", nil])
        #expect(list[1].headerTokens == ["\"Doe, Jane\"", "<jane@example.org>"])
        #expect(list[0].headerTokens.last == "<ivan@example.com>")
        #expect(list[0].headerTokens.first?.hasPrefix("=?UTF-8?B?") == true)
    }

    // MARK: - Whole messages

    static let noon = Date(timeIntervalSince1970: 1_795_953_600)

    /// Bytes that start like a PNG (signature and IHDR), different per `tag`, standing in for a rasterizer's output.
    static func fakePNG(_ tag: UInt8) -> Data {
        Data(
            PNGImage.signature + [0, 0, 0, 13] + Array("IHDR".utf8) + [
                0, 0, 6, 64, 0, 0, 3, 32, 8, 6, 0, 0, 0, tag, tag, tag, tag
            ])
    }

    /// The message and its files in the order Python walks them: inline PNGs, then attached SVGs.
    static func reportMessage(seed: UInt64 = 42, subject: String = "Метрика: неделя Shop и «Блог о кофе», 23–29 ноября")
        throws -> (MIMEMessage, [Data])
    {
        let charts = [SVGLineChartTests.thirtyDays().render(), SVGLineChartTests.oneDay().render()].map {
            Data($0.utf8)
        }
        let pngs = [fakePNG(1), fakePNG(2)]
        let text =
            "Visits  Users\n1 234   1 000\n\nЗа неделю визитов больше на 12.5% = отлично.\n.\nFrom the nightly job\n"
            + String(repeating: "long line ", count: 20)
        let html =
            "<!DOCTYPE html><html><body><p>Визиты</p><img src=\"cid:chart-1@metrika\" alt=\"Visits\"><img src=\"cid:chart-2@metrika\" alt=\"Depth\"></body></html>"
        let body = MIMEPart.report(
            text: text, html: html,
            inline: [
                MIMEPart.Image(
                    data: pngs[0], mediaType: "image/png", filename: "shop-visits-2026-11-29.png",
                    contentID: "chart-1@metrika"),
                MIMEPart.Image(
                    data: pngs[1], mediaType: "image/png", filename: "глубина-просмотра.png",
                    contentID: "chart-2@metrika")
            ],
            attachments: [
                MIMEPart.Image(data: charts[0], mediaType: "image/svg+xml", filename: "shop-visits-2026-11-29.svg"),
                MIMEPart.Image(data: charts[1], mediaType: "image/svg+xml", filename: "глубина-просмотра.svg")
            ])
        let message = MIMEMessage(
            from: try MIMEAddress(parsing: "Метрика на сервере <metrika@example.com>"),
            to: try MIMEAddress.list(parsing: "Иван Петров <ivan@example.com>, ops@example.org"),
            subject: subject, date: noon, utcOffsetSeconds: 3 * 3600, seed: seed, body: body)
        return (message, pngs + charts)
    }

    struct ParsedMessage: Decodable {
        struct Node: Decodable {
            let type: String
            let disposition: String?
            let filename: String?
            let contentID: String?
            let charset: String?
            let encoding: String?
            let parts: [Node]?
            let savedAs: String?
        }
        let headers: [String: String]
        let toAddresses: [String]
        let fromDisplayNames: [String]
        let dateParsed: String?
        let tree: Node
        let texts: [String: String]
        let files: [Node]
        let defects: [String]
    }

    /// The parsed message and the decoded bytes of its file parts, in order.
    func parseWithPython(_ bytes: Data) throws -> (ParsedMessage, [Data]) {
        let directory = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("message.eml")
        try bytes.write(to: file)
        let result = try S.runPython("check_mime.py", [file.path, directory.path])
        try #require(result.status == 0, "check_mime.py: \(result.stderr)")
        let parsed = try JSONDecoder().decode(ParsedMessage.self, from: result.stdout)
        let files = try parsed.files.map { try Data(contentsOf: URL(fileURLWithPath: try #require($0.savedAs))) }
        return (parsed, files)
    }

    @Test func pythonsEmailPackageReadsTheReportMessage() throws {
        let (message, expected) = try Self.reportMessage()
        let bytes = message.bytes()
        let (parsed, files) = try parseWithPython(bytes)
        #expect(parsed.defects.isEmpty, "\(parsed.defects)")
        #expect(parsed.headers["Subject"] == "Метрика: неделя Shop и «Блог о кофе», 23–29 ноября")
        #expect(parsed.fromDisplayNames == ["Метрика на сервере"])
        #expect(parsed.toAddresses == ["ivan@example.com", "ops@example.org"])
        #expect(parsed.headers["MIME-Version"] == "1.0")
        #expect(parsed.headers["Auto-Submitted"] == "auto-generated")
        #expect(parsed.dateParsed == "2026-11-29T15:00:00+03:00")
        #expect(parsed.headers["Message-ID"] == message.messageID)

        // Structure: mixed ⊃ (alternative ⊃ (plain, related ⊃ (html, 2 inline PNGs)), 2 SVG attachments).
        let tree = parsed.tree
        #expect(tree.type == "multipart/mixed")
        let top = try #require(tree.parts)
        #expect(top.map(\.type) == ["multipart/alternative", "image/svg+xml", "image/svg+xml"])
        let alternative = try #require(top[0].parts)
        #expect(alternative.map(\.type) == ["text/plain", "multipart/related"])
        #expect(alternative[0].charset == "utf-8")
        let related = try #require(alternative[1].parts)
        #expect(related.map(\.type) == ["text/html", "image/png", "image/png"])
        #expect(related.dropFirst().map(\.contentID) == ["<chart-1@metrika>", "<chart-2@metrika>"])
        #expect(related.dropFirst().map(\.disposition) == ["inline", "inline"])
        #expect(top.dropFirst().map(\.disposition) == ["attachment", "attachment"])
        #expect(top.dropFirst().map(\.filename) == ["shop-visits-2026-11-29.svg", "глубина-просмотра.svg"])
        #expect(top.dropFirst().map(\.encoding) == ["base64", "base64"])

        // Texts decode back exactly (line ends compared as LF: readers normalize them).
        #expect(
            parsed.texts["text/plain"]?.replacingOccurrences(of: "\r\n", with: "\n").contains(
                "За неделю визитов больше на 12.5% = отлично.\n.\nFrom the nightly job\n") == true)
        #expect(parsed.texts["text/html"]?.contains("<img src=\"cid:chart-1@metrika\"") == true)

        // Every file part, inline and attached, decodes to its bytes exactly.
        #expect(parsed.files.count == 4)
        #expect(files == expected)
    }

    @Test func everyLineIsCRLFTerminatedASCIIWithinLimits() throws {
        let (message, _) = try Self.reportMessage()
        let bytes = [UInt8](message.bytes())
        #expect(bytes.allSatisfy { $0 < 128 }, "8-bit bytes in the message")
        var lineLength = 0
        var previous: UInt8 = 0
        var longest = 0
        for byte in bytes {
            if byte == 0x0A {
                #expect(previous == 0x0D, "bare LF")
                lineLength = 0
            } else if byte != 0x0D {
                #expect(previous != 0x0D, "bare CR")
                lineLength += 1
                longest = max(longest, lineLength)
            }
            previous = byte
        }
        #expect(longest <= 76, "longest line \(longest)")
        #expect(bytes.suffix(2) == [0x0D, 0x0A])
    }

    @Test func theSameSeedGivesTheSameBytesAndAnotherSeedOtherBoundaries() throws {
        let one = try Self.reportMessage(seed: 7).0.bytes()
        let again = try Self.reportMessage(seed: 7).0.bytes()
        let other = try Self.reportMessage(seed: 8).0
        #expect(one == again)
        #expect(one != other.bytes())
        #expect(try Self.reportMessage(seed: 7).0.messageID != other.messageID)
        #expect(other.messageID.hasSuffix("@example.com>"))
        // Boundaries are distinct per multipart and start with "=_", which QP and base64 cannot produce.
        let text = other.rendered()
        let boundaries = text.components(separatedBy: "boundary=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        #expect(boundaries.count == 3 && Set(boundaries).count == 3)
        #expect(boundaries.allSatisfy { $0.hasPrefix("=_metrika_") })
    }

    @Test func headerInjectionIsNeutralized() throws {
        let (message, _) = try Self.reportMessage(subject: "Hi\r\nBcc: victim@example.com\r\n\r\nbody")
        let text = message.rendered()
        let headerBlock = text.components(separatedBy: "\r\n\r\n")[0]
        #expect(!headerBlock.components(separatedBy: "\r\n").contains { $0.hasPrefix("Bcc:") })
        let (parsed, _) = try parseWithPython(message.bytes())
        // Control characters became spaces and runs of spaces one: the text stays, as a single header.
        #expect(parsed.headers["Subject"] == "Hi Bcc: victim@example.com body")
    }

    @Test func aPlainASCIISubjectIsNotEncoded() throws {
        let (message, _) = try Self.reportMessage(subject: "Metrika: week 48")
        #expect(message.rendered().contains("\r\nSubject: Metrika: week 48\r\n"))
    }
}
