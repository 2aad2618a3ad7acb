import Foundation
import MetrikaModel
import MetrikaRender
import MetrikaSystem

/// The mail of `metrika alert --mail`: the alert lines, and for each metric alerted on a day a small
/// chart of its last five weeks marking the judged day (PNG inline, as `metrika mail` sends them; SVG
/// when rsvg-convert is missing, with one warning); an hour's news is its line, without a chart. Its
/// own short composition: the daily report's layout stays `MailComposer`'s.
package enum AlertMail {
    /// Charts in one mail at most.
    package static let maximumCharts = 20

    /// The SVG chart of each of the first `maximumCharts` findings: its last five weeks, the judged
    /// day marked (the mail's and the Telegram message's).
    package static func chartSVGs(_ findings: [AlertCheck.Finding]) -> [Data] {
        findings.prefix(maximumCharts).map { finding -> Data in
            var chart = AlertChart(
                points: finding.recent, expected: finding.judgement.expected,
                title: "\(AlertText.metricLabel(finding)) — \(finding.counter.displayName)",
                subtitle:
                    "\(AlertText.dayText(finding.judgement.day)): \(AlertText.value(finding.judgement.value, of: finding.metric)) (\(AlertText.changeText(finding.judgement)))"
            )
            if finding.metric.unit == .money { chart.currency = finding.metric.currency }
            chart.expectedText = "~" + AlertText.expected(finding.judgement.expected, of: finding.metric)
            return Data(chart.render().utf8)
        }
    }

    /// A finding's chart file name, without the extension.
    package static func chartName(_ finding: AlertCheck.Finding) -> String {
        "alert-\(finding.counter.id)-\(finding.metric.shortName)-\(finding.judgement.day.iso)"
    }

    package static func compose(
        _ findings: [AlertCheck.Finding], sender: MIMEAddress, recipients: [MIMEAddress],
        rasterizer: any ChartRasterizer, activity: any Activity
    ) async throws -> MIMEMessage {
        let pngs = try await pngCharts(findings, rasterizer: rasterizer, activity: activity)
        return compose(findings, sender: sender, recipients: recipients, pngs: pngs, now: activity.now())
    }

    /// The PNG of each chart `compose` would draw for `findings`, by `chartName`: drawn before the
    /// news is claimed, so that the mail of the news won is composed at once (`compose(…pngs:now:)`).
    /// Empty, with one warning, when the rasterizer fails (the mail then carries SVG).
    package static func pngCharts(
        _ findings: [AlertCheck.Finding], rasterizer: any ChartRasterizer, activity: any Activity
    ) async throws -> [String: Data] {
        guard findings.first?.grain != .hour else { return [:] }
        var pngs: [String: Data] = [:]
        do {
            for (index, svg) in chartSVGs(findings).enumerated() {
                pngs[chartName(findings[index])] = try await rasterizer.png(fromSVG: svg, scale: ChartSeries.pngScale)
            }
        } catch let error as ChartRasterizerError {
            activity.note(
                "Warning: the alert charts are inline as SVG, which Gmail and Outlook do not show: \(error.message(activity.naming))"
            )
            return [:]
        }
        return pngs
    }

    /// The mail of `findings` with the PNG charts drawn already (`pngCharts`; a chart without one is SVG).
    package static func compose(
        _ findings: [AlertCheck.Finding], sender: MIMEAddress, recipients: [MIMEAddress], pngs: [String: Data],
        now: Date
    ) -> MIMEMessage {
        let seed = UInt64.random(in: 1...UInt64.max)
        let tag = String(seed, radix: 16)
        let hours = findings.first?.grain == .hour
        // A chart for each of the first `maximumCharts` findings of a day: a bad night over 100
        // counters is still a mail of a few hundred kilobytes; the rest are lines.
        let charts = hours ? [] : chartSVGs(findings)
        let images = charts.enumerated().map { index, svg -> MIMEPart.Image in
            let name = chartName(findings[index])
            let contentID = "alert-\(index).\(tag)@metrika"
            if let png = pngs[name] {
                return MIMEPart.Image(data: png, mediaType: "image/png", filename: name + ".png", contentID: contentID)
            }
            return MIMEPart.Image(data: svg, mediaType: "image/svg+xml", filename: name + ".svg", contentID: contentID)
        }

        var text = AlertText.subject(findings) + "\n\n"
        for finding in findings { text += AlertText.lines(finding).map { $0 + "\n" }.joined() }
        // What a line says: the judged day or hours, and what they are judged against.
        let judged = hours ? "the last finished hours" : "the day's value"
        let baseline = hours ? "the same hours of the same weekday" : "the same weekday"
        text +=
            "\nEach line: the counter, the metric, \(judged) and the median of \(baseline) over the previous weeks.\n"
        text +=
            "-- \nSent by metrika \(MetrikaVersion.current) (\(hours ? "the hourly alert check" : "metrika alert")).\n"

        func e(_ text: String) -> String { XMLEscape.text(text) }
        let viewport = hours ? "" : "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        var html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\(viewport)"
        html += "<title>\(e(AlertText.subject(findings)))</title></head>\n"
        html += "<body style=\"font-family: sans-serif; color: #222; margin: 0; padding: 12px;\">\n"
        for (index, finding) in findings.enumerated() {
            let image = index < images.count ? images[index] : nil
            let color: String
            switch finding.notice {
            case .alert(.rise): color = "#B25E00"
            case .alert, .continues: color = "#B00020"
            case .backToNormal: color = "#1B7F3B"
            }
            let margin = hours ? "12px 0" : "16px 0 4px"
            html += "<p style=\"margin: \(margin); color: \(color); font-weight: bold;\">"
            html += "\(HTMLText.prose(AlertText.line(finding)))</p>\n"
            for note in finding.annotations {
                html += "<p style=\"margin: 0 0 4px 16px; color: #555;\">"
                html += "\(HTMLText.prose(AnnotationText.line(note)))</p>\n"
            }
            if let image {
                html +=
                    "<p style=\"margin: 0;\"><img src=\"cid:\(XMLEscape.attribute(image.contentID ?? ""))\" alt=\"\(XMLEscape.attribute(AlertText.chartDescription(finding)))\" width=\"360\" style=\"max-width:100%;height:auto\"></p>\n"
            }
        }
        let expected =
            hours
            ? "Expected: the median of \(baseline) over the previous weeks."
            : "The dashed line is what was expected: the median of \(baseline) over the previous weeks; the dots are those days."
        html +=
            "<p style=\"color: #777; font-size: 12px;\">\(expected) Sent by metrika \(e(MetrikaVersion.current)).</p>\n"
        html += "</body></html>\n"

        let offset =
            findings.first.flatMap { TimeZone(identifier: $0.counter.timeZoneName)?.secondsFromGMT(for: now) } ?? 0
        return MIMEMessage(
            from: sender, to: recipients, subject: AlertText.subject(findings), date: now, utcOffsetSeconds: offset,
            seed: seed,
            body: MIMEPart.report(text: text, html: html, inline: images, attachments: []))
    }
}
