import Foundation
import MetrikaModel

/// A complete Internet message (RFC 5322 with MIME, RFC 2045–2047, 2231) as bytes ready for
/// `sendmail -t -i`: CRLF line ends, headers folded within 78 characters, non-ASCII header text as
/// encoded-words, bodies in quoted-printable or base64 so that every line stays within 76 characters.
///
/// Everything that varies between runs is injected — the date, and a seed from which the Message-ID
/// and the multipart boundaries derive — so that tests can compare messages byte for byte.
package struct MIMEMessage: Sendable {
    /// The sender (`From`).
    package var from: MIMEAddress
    /// The recipients (`To`); sendmail `-t` delivers to these.
    package var to: [MIMEAddress]
    /// The subject, any Unicode.
    package var subject: String
    /// The moment the message is dated.
    package var date: Date
    /// The UTC offset the `Date` header is written in, in seconds.
    package var utcOffsetSeconds: Int
    /// The source of the Message-ID and boundaries: random in production, fixed in tests.
    package var seed: UInt64
    /// The body.
    package var body: MIMEPart
    /// Extra header fields (name, already-ASCII value), written after the standard ones.
    package var extraHeaders: [(name: String, value: String)]

    /// Creates a message. `Auto-Submitted: auto-generated` (RFC 3834) is added by default, because these
    /// messages come from cron and auto-responders must not answer them.
    package init(
        from: MIMEAddress, to: [MIMEAddress], subject: String, date: Date, utcOffsetSeconds: Int = 0, seed: UInt64,
        body: MIMEPart,
        extraHeaders: [(name: String, value: String)] = [("Auto-Submitted", "auto-generated")]
    ) {
        self.from = from
        self.to = to
        self.subject = subject
        self.date = date
        self.utcOffsetSeconds = utcOffsetSeconds
        self.seed = seed
        self.body = body
        self.extraHeaders = extraHeaders
    }

    /// `<…@sender-domain>`, derived from the seed and the date.
    package var messageID: String {
        var generator = SeededRandom(seed: seed ^ 0x4D45_5353_4147_4549)
        let stamp = String(Int64(date.timeIntervalSince1970.rounded(.down)))
        return "<" + stamp + "." + generator.nextHex() + "@" + from.domain + ">"
    }

    /// The message as it goes to sendmail.
    package func bytes() -> Data {
        Data(rendered().utf8)
    }

    /// The message as text (ASCII only; CRLF line ends; ends with CRLF).
    package func rendered() -> String {
        var headers: [String] = []
        headers.append("Date: " + MIMEEncoding.dateHeaderValue(date, offsetSeconds: utcOffsetSeconds))
        headers.append(MIMEEncoding.foldedHeader("From", tokens: from.headerTokens))
        headers.append(MIMEEncoding.foldedHeader("To", tokens: addressListTokens(to)))
        headers.append(MIMEEncoding.unstructuredHeader("Subject", value: subject))
        headers.append("Message-ID: " + messageID)
        headers.append("MIME-Version: 1.0")
        for header in extraHeaders {
            headers.append(
                MIMEEncoding.foldedHeader(
                    MIMEEncoding.singleLine(header.name), tokens: [MIMEEncoding.singleLine(header.value)]))
        }
        var generator = SeededRandom(seed: seed)
        var counter = 0
        // "=_" cannot occur in quoted-printable (a literal "=" is always followed by hex or a line end)
        // nor in base64, so these boundaries can never collide with a body line.
        var nextBoundary: () -> String = {
            counter += 1
            return "=_metrika_" + generator.nextHex() + "_" + String(counter)
        }
        let (bodyHeaders, body) = body.serialized(nextBoundary: &nextBoundary)
        headers += bodyHeaders
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n"
    }

    private func addressListTokens(_ addresses: [MIMEAddress]) -> [String] {
        var tokens: [String] = []
        for (index, address) in addresses.enumerated() {
            var mailbox = address.headerTokens
            if index < addresses.count - 1 { mailbox[mailbox.count - 1] += "," }
            tokens += mailbox
        }
        return tokens
    }
}
