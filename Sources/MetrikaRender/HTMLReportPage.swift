import MetrikaModel

/// A report as one HTML page that reads on a phone (390 px) and on a desktop alike: the rendering the
/// mail's HTML part and `report --format html` share.
///
/// Written for the strictest readers: every style inline (Gmail drops `<style>` in some cases), no
/// script, no media query (Outlook on the desktop ignores them), no external resource. Phone first
/// without media queries: blocks that sit side by side where there is room and stack where there is
/// not (`display:inline-block`), charts drawn for a 360 px column, and no number or date that can break
/// over lines (no-break spaces, `white-space:nowrap`).
package struct HTMLReportPage: Sendable {
    /// A chart: inline SVG markup (the page), or an image (the mail's PNG by `cid:`).
    package enum Figure: Sendable {
        case inline(String)
        case image(source: String, alt: String, width: Int, height: Int)
    }

    /// How a change reads: good news, bad news, or neither.
    package enum Tone: Sendable {
        case good, bad, neutral
    }

    /// A metric's value over the period and its change: the summary's cards.
    package struct SummaryItem: Sendable {
        package var title: String
        package var value: String
        /// `+5.2%`, `-0.9 pp`; nil when nothing is compared.
        package var change: String?
        package var tone: Tone
        /// The previous period's value, as text.
        package var previous: String?

        package init(title: String, value: String, change: String?, tone: Tone, previous: String?) {
            self.title = title
            self.value = value
            self.change = change
            self.tone = tone
            self.previous = previous
        }
    }

    /// The table, cut into blocks of a few columns that fit a phone and sit side by side on a desktop.
    package struct Table: Sendable {
        /// One row: its key (a date or a dimension's value) and the cells of each column group.
        package struct Row: Sendable {
            package var key: String
            package var groups: [[String]]
            package var isTotal: Bool
            /// A small second line under the key (`4 days`: a week cut by the period), which would
            /// widen the key column past a phone's width on the key's own line.
            package var keyNote: String?

            package init(key: String, groups: [[String]], isTotal: Bool = false, keyNote: String? = nil) {
                self.key = key
                self.groups = groups
                self.isTotal = isTotal
                self.keyNote = keyNote
            }
        }

        /// The key column's header (`Date`, `Traffic source`).
        package var keyTitle: String
        /// Whether the keys are dates or numbers (never broken) or free text (may wrap).
        package var keysAreValues: Bool
        /// Column titles, grouped: a metric, or a metric with its previous value and change. A group
        /// is never split between blocks.
        package var groups: [[String]]
        package var rows: [Row]
        /// At most this many value columns per block (a whole group always fits).
        package var columnsPerBlock = 3

        package init(keyTitle: String, keysAreValues: Bool, groups: [[String]], rows: [Row]) {
            self.keyTitle = keyTitle
            self.keysAreValues = keysAreValues
            self.groups = groups
            self.rows = rows
        }

        /// One column of a block: the `index`th title of group `group`.
        package struct Column: Hashable, Sendable {
            package var group: Int
            package var index: Int
        }

        /// The widest a block may be: a phone's column (390 px less the page's margins).
        package static let phoneWidth = 360.0

        /// The columns of each block, in order. A group's columns stay together when they fit a
        /// phone beside the key; a group too wide for that (money with its `before` and `change`)
        /// goes on over as many blocks as it needs, each repeating the key.
        package var blocks: [[Column]] {
            let fontSize = 14.0
            let padding = 10.0
            func width(_ text: String) -> Double { ChartTicks.estimatedWidth(of: text, fontSize: fontSize) }
            // Headers wrap between words; values, dates and numbers never wrap. Free-text keys wrap
            // anywhere (the browser gives the key column what the values leave): 100 px keeps them readable.
            func wordWidth(_ text: String) -> Double { text.split(separator: " ").map { width(String($0)) }.max() ?? 0 }
            let keyWidth = keysAreValues ? max(wordWidth(keyTitle), rows.map { width($0.key) }.max() ?? 0) : 100
            let room = Self.phoneWidth - keyWidth
            func columnWidth(_ column: Column) -> Double {
                let cells = rows.map {
                    column.group < $0.groups.count && column.index < $0.groups[column.group].count
                        ? $0.groups[column.group][column.index] : ""
                }
                return max(wordWidth(groups[column.group][column.index]), cells.map(width).max() ?? 0) + padding
            }
            var blocks: [[Column]] = []
            var current: [Column] = []
            var used = 0.0
            func close() {
                if !current.isEmpty { blocks.append(current) }
                current = []
                used = 0
            }
            for group in groups.indices {
                let columns = groups[group].indices.map { Column(group: group, index: $0) }
                let widths = columns.map(columnWidth)
                let total = widths.reduce(0, +)
                if !current.isEmpty, current.count + columns.count > columnsPerBlock || used + total > room { close() }
                guard total > room, columns.count > 1 else {
                    current += columns
                    used += total
                    continue
                }
                // Too wide even alone: its columns over several blocks, at least one in each.
                for (column, columnWidth) in zip(columns, widths) {
                    if !current.isEmpty, used + columnWidth > room { close() }
                    current.append(column)
                    used += columnWidth
                }
                close()
            }
            close()
            return blocks
        }

        /// A column's header in `block`: its own title, or with its group's first title when that
        /// is in another block (`Revenue before`, `Revenue change`).
        func title(_ column: Column, in block: [Column]) -> String {
            let own = groups[column.group][column.index]
            guard column.index > 0, !block.contains(Column(group: column.group, index: 0)) else { return own }
            return groups[column.group][0] + " " + own
        }
    }

    /// One counter's part.
    package struct Section: Sendable {
        package var heading: String
        /// Site, id, period: each kept on one line, joined by ` · `.
        package var subheading: [String]
        /// The previous period the changes are against (`17–23 Nov 2026`); nil when nothing is compared.
        package var comparedWith: String?
        package var summary: [SummaryItem]
        package var figures: [Figure]
        /// `By day`, `Top rows`, …
        package var tableTitle: String
        package var table: Table?
        /// Lines under the table (incomplete periods, sampling, missing days).
        package var notes: [String]
        /// The summary as one wrapping line of `Visits 3 085 ▼ -12.0%` instead of cards: a fifth of
        /// the bytes, for a mail of many counters (Gmail clips an HTML part past 102 KB).
        package var compactSummary = false

        package init(
            heading: String, subheading: [String], comparedWith: String?, summary: [SummaryItem], figures: [Figure],
            tableTitle: String, table: Table?, notes: [String]
        ) {
            self.heading = heading
            self.subheading = subheading
            self.comparedWith = comparedWith
            self.summary = summary
            self.figures = figures
            self.tableTitle = tableTitle
            self.table = table
            self.notes = notes
        }
    }

    /// The document's `<title>`.
    package var title: String
    package var sections: [Section]
    /// The last line (`Made by metrika 1.2.0`).
    package var footer: String
    /// When the page was made (`Wed 25 Nov 2026 09:00 UTC`), kept on one line after the footer.
    package var madeAt: String?
    /// The widest the content grows on a desktop (the mail: two charts side by side; the page: three).
    package var maxWidth: Int

    package init(title: String, sections: [Section], footer: String, madeAt: String? = nil, maxWidth: Int) {
        self.title = title
        self.sections = sections
        self.footer = footer
        self.madeAt = madeAt
        self.maxWidth = maxWidth
    }

    // MARK: - Styles

    static let fontStack = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif"
    static let textColor = "#1F1F1F"
    static let mutedColor = "#5F5F5F"
    static let lineColor = "#DDDDDD"

    static func color(_ tone: Tone) -> String {
        switch tone {
        case .good: return "#1A7F37"
        case .bad: return "#C62828"
        case .neutral: return mutedColor
        }
    }

    // MARK: - Rendering

    /// The whole document, UTF-8 text ending with a newline.
    package func render() -> String {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        // Light only: the charts are drawn on white, and a reader that darkens the text around them
        // must not turn the page's own colours into dark-on-dark.
        html +=
            "<meta name=\"color-scheme\" content=\"light\">\n<meta name=\"supported-color-schemes\" content=\"light\">\n"
        html += "<title>\(HTMLText.text(title))</title>\n</head>\n"
        html += "<body style=\"margin:0;padding:0;background:#FFFFFF;color:\(Self.textColor)\">\n"
        html +=
            "<div style=\"max-width:\(maxWidth)px;margin:0 auto;padding:12px;background:#FFFFFF;color:\(Self.textColor);font-family:\(Self.fontStack);font-size:15px;line-height:1.4\">\n"
        for (index, section) in sections.enumerated() {
            if index > 0 { html += "<hr style=\"border:0;border-top:1px solid \(Self.lineColor);margin:24px 0\">\n" }
            html += render(section)
        }
        html +=
            "<p style=\"margin:24px 0 0;color:\(Self.mutedColor);font-size:13px\">\(HTMLText.text(footer))\(madeAt.map { ", " + HTMLText.nowrap($0) } ?? "").</p>\n"
        html += "</div>\n</body>\n</html>\n"
        return Self.withoutC1Controls(html)
    }

    /// The page without C1 control characters (U+0080–U+009F). Server text is escaped on its way in
    /// (`XMLEscape` drops C0 controls such as ESC), but C1 controls are legal XML: they mean nothing in
    /// HTML, and on a terminal (`report --format html` to stdout) U+009B starts an escape sequence.
    /// metrika's own markup has none, so removing them from the whole page removes only server text's.
    static func withoutC1Controls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !(0x80...0x9F).contains(scalar.value) { scalars.append(scalar) }
        return String(scalars)
    }

    func render(_ section: Section) -> String {
        var html =
            "<h1 style=\"margin:0;font-size:20px;line-height:1.3;overflow-wrap:break-word\">\(HTMLText.text(section.heading))</h1>\n"
        html +=
            "<p style=\"margin:2px 0 12px;color:\(Self.mutedColor);font-size:13px;overflow-wrap:break-word\">\(section.subheading.map(HTMLText.nowrap).joined(separator: " · "))</p>\n"
        if !section.summary.isEmpty {
            html += "<h2 style=\"margin:0 0 8px;font-size:16px\">Summary"
            if let compared = section.comparedWith {
                html +=
                    " <span style=\"font-weight:normal;color:\(Self.mutedColor);font-size:13px\">against \(HTMLText.nowrap(compared))</span>"
            }
            html += "</h2>\n"
            if section.compactSummary {
                html +=
                    "<p style=\"margin:0 0 8px\">" + section.summary.map(renderCompact).joined(separator: " · ")
                    + "</p>\n"
            } else {
                html += "<div>\n"
                for item in section.summary { html += render(item) }
                html += "</div>\n"
            }
        }
        if !section.figures.isEmpty {
            html += "<div style=\"margin:8px 0 4px\">\n"
            for figure in section.figures {
                html += "<div style=\"display:inline-block;vertical-align:top;max-width:100%;margin:0 12px 12px 0\">"
                switch figure {
                case .inline(let svg):
                    html += "\n" + svg
                case .image(let source, let alt, let width, let height):
                    // width/height: the size on a desktop (Outlook honours only the attributes); the
                    // style shrinks it with a narrower column, keeping its proportions.
                    html +=
                        "<img src=\"\(HTMLText.attribute(source))\" alt=\"\(HTMLText.attribute(alt))\" width=\"\(width)\" height=\"\(height)\" style=\"display:block;max-width:100%;height:auto;border:0;background:#FFFFFF\">"
                }
                html += "</div>\n"
            }
            html += "</div>\n"
        }
        if let table = section.table {
            html += "<h2 style=\"margin:8px 0 8px;font-size:16px\">\(HTMLText.text(section.tableTitle))</h2>\n<div>\n"
            for block in table.blocks { html += render(table, block: block) }
            html += "</div>\n"
        }
        for note in section.notes {
            html += "<p style=\"margin:4px 0;color:\(Self.mutedColor);font-size:13px\">\(HTMLText.note(note))</p>\n"
        }
        return html
    }

    func render(_ item: SummaryItem) -> String {
        var html =
            "<div style=\"display:inline-block;vertical-align:top;min-width:146px;margin:0 8px 10px 0;padding:8px 10px;border:1px solid \(Self.lineColor);border-radius:6px\">"
        html += "<div style=\"font-size:13px;color:\(Self.mutedColor)\">\(HTMLText.text(item.title))</div>"
        html +=
            "<div style=\"font-size:22px;font-weight:bold;line-height:1.25;white-space:nowrap\">\(HTMLText.unbroken(item.value))</div>"
        if let change = item.change {
            let arrow = change.hasPrefix("+") ? "▲ " : change.hasPrefix("-") ? "▼ " : ""
            html +=
                "<div style=\"font-size:14px;white-space:nowrap;color:\(Self.color(item.tone))\">\(arrow)\(HTMLText.unbroken(change))</div>"
            if let previous = item.previous {
                html +=
                    "<div style=\"font-size:13px;white-space:nowrap;color:\(Self.mutedColor)\">from \(HTMLText.unbroken(previous))</div>"
            }
        }
        html += "</div>\n"
        return html
    }

    /// A summary item on one unbreakable run: `Visits <b>3 085</b> ▼ -12.0%` (the change in its tone's colour).
    func renderCompact(_ item: SummaryItem) -> String {
        var html =
            "<span style=\"white-space:nowrap\">\(HTMLText.unbroken(item.title)) <b>\(HTMLText.unbroken(item.value))</b>"
        if let change = item.change {
            let arrow = change.hasPrefix("+") ? "▲ " : change.hasPrefix("-") ? "▼ " : ""
            html += " <span style=\"color:\(Self.color(item.tone))\">\(arrow)\(HTMLText.unbroken(change))</span>"
        }
        return html + "</span>"
    }

    func render(_ table: Table, block: [Table.Column]) -> String {
        let cellPadding = "padding:4px 0 4px 10px"
        var html = "<div style=\"display:inline-block;vertical-align:top;max-width:100%;margin:0 12px 16px 0\">\n"
        html += "<table style=\"border-collapse:collapse;font-size:14px\">\n<thead><tr>"
        html +=
            "<th scope=\"col\" style=\"text-align:left;padding:4px 0;border-bottom:1px solid #BBBBBB;vertical-align:bottom\">\(HTMLText.text(table.keyTitle))</th>"
        for column in block {
            html +=
                "<th scope=\"col\" style=\"text-align:right;\(cellPadding);border-bottom:1px solid #BBBBBB;vertical-align:bottom\">\(HTMLText.text(table.title(column, in: block)))</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        // Per cell as few bytes as do the job (Gmail clips an HTML part past 102 KB): the row's rule on
        // the <tr>, and the old `align`/`nowrap` attributes, which every mail reader honours.
        for row in table.rows {
            html +=
                row.isTotal
                ? "<tr style=\"border-top:1px solid #BBB;font-weight:bold\">"
                : "<tr style=\"border-top:1px solid #EEE\">"
            if table.keysAreValues || row.isTotal {
                let note =
                    row.keyNote.map {
                        "<br><span style=\"font-size:12px;color:\(Self.mutedColor)\">\(HTMLText.unbroken($0))</span>"
                    } ?? ""
                html +=
                    "<th scope=\"row\" align=\"left\" nowrap style=\"padding:4px 0\(row.isTotal ? "" : ";font-weight:normal")\">\(HTMLText.unbroken(row.key))\(note)</th>"
            } else {
                html +=
                    "<th scope=\"row\" align=\"left\" style=\"padding:4px 0;font-weight:normal;overflow-wrap:break-word;max-width:200px\">\(HTMLText.text(row.key))</th>"
            }
            for column in block {
                let cells = column.group < row.groups.count ? row.groups[column.group] : []
                html +=
                    "<td align=\"right\" nowrap style=\"\(cellPadding)\">\(HTMLText.unbroken(column.index < cells.count ? cells[column.index] : ""))</td>"
            }
            html += "</tr>\n"
        }
        html += "</tbody>\n</table>\n</div>\n"
        return html
    }
}
