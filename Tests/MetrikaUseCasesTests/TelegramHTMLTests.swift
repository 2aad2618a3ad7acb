import Foundation
import Testing

@testable import MetrikaUseCases

/// The one escaper and the splitter of text bound for Telegram's HTML parse mode.
@Suite struct TelegramHTMLTests {
    @Test func escapeTurnsMarkupCharactersIntoEntities() {
        #expect(
            TelegramHTML.escape("<script>alert(\"x\")</script> & Co")
                == "&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; Co")
        #expect(TelegramHTML.escape("Интернет-магазин «Ромашка»") == "Интернет-магазин «Ромашка»")
        #expect(TelegramHTML.escape("&amp;") == "&amp;amp;")
    }

    @Test func aShortTextIsOneMessage() {
        #expect(TelegramHTML.split("<b>Visits</b>\n1 234") == ["<b>Visits</b>\n1 234"])
        #expect(TelegramHTML.split("\n  \n").isEmpty)
    }

    @Test func aLongTextSplitsBetweenLinesIntoMessagesWithinTheLimit() {
        let lines = (1...5000).map { "line \($0): visits \($0 * 7)" }
        let messages = TelegramHTML.split(lines.joined(separator: "\n"))
        #expect(messages.count > 1)
        for message in messages {
            #expect(TelegramHTML.length(message) <= TelegramHTML.messageLimit)
            #expect(!message.hasPrefix("\n") && !message.hasSuffix("\n"))
        }
        // Nothing lost, nothing cut inside a line.
        #expect(messages.joined(separator: "\n") == lines.joined(separator: "\n"))
    }

    @Test func aTagOpenAtACutIsClosedAndOpenedAgain() {
        let table =
            "<b>Report</b>\n<pre>" + (1...400).map { "row \($0)    12 345" }.joined(separator: "\n") + "</pre>\nend"
        let messages = TelegramHTML.split(table, limit: 1000)
        #expect(messages.count > 2)
        for message in messages {
            #expect(message.count <= 1000)
            let opens = message.components(separatedBy: "<pre>").count - 1
            let closes = message.components(separatedBy: "</pre>").count - 1
            #expect(opens == closes, "\(message.prefix(40))…\(message.suffix(40))")
        }
        #expect(messages[1].hasPrefix("<pre>"))
        #expect(messages.last!.hasSuffix("end"))
    }

    @Test func aLineLongerThanAMessageIsCutAtSpacesNeverInsideAnEntity() {
        let line = Array(repeating: "Ромашка &amp; Co", count: 600).joined(separator: " ")
        let messages = TelegramHTML.split(line, limit: 500)
        #expect(messages.count > 1)
        for message in messages {
            #expect(message.utf16.count <= 500)
            #expect(!message.hasPrefix("amp;") && !message.hasSuffix("&am"))
        }
        #expect(messages.joined(separator: " ") == line)
    }

    @Test func lengthCountsUTF16CodeUnitsAsTelegramDoes() {
        #expect(TelegramHTML.length("📈") == 2)
        let emoji = String(repeating: "📈", count: 3000) // 6,000 UTF-16 units
        let messages = TelegramHTML.split(emoji)
        #expect(messages.count == 2)
        #expect(messages.allSatisfy { $0.utf16.count <= 4096 })
    }
}
