import Foundation

/// One node of a MIME body: a text, a binary file, or a multipart container of further parts.
package struct MIMEPart: Sendable {
    /// What a part holds.
    package enum Content: Sendable {
        /// UTF-8 text of a `text/<subtype>` type, sent quoted-printable.
        case text(String, subtype: String)
        /// Bytes of any media type (`image/svg+xml`), sent base64.
        case binary(Data, mediaType: String)
        /// A `multipart/<subtype>` container (`mixed`, `alternative`, `related`).
        indirect case multipart(subtype: String, parts: [MIMEPart])
    }

    /// How a mail reader should present a file part.
    package enum Disposition: String, Sendable {
        case inline, attachment
    }

    /// The part's content.
    package var content: Content
    /// The file name readers show and save under, if any.
    package var filename: String?
    /// Inline or attachment, if said.
    package var disposition: Disposition?
    /// The Content-ID (without angle brackets) that HTML refers to as `cid:…`, if any.
    package var contentID: String?

    /// Creates a part.
    package init(content: Content, filename: String? = nil, disposition: Disposition? = nil, contentID: String? = nil) {
        self.content = content
        self.filename = filename
        self.disposition = disposition
        self.contentID = contentID
    }

    /// A `text/plain` (or other `text/<subtype>`) part.
    package static func text(_ text: String, subtype: String = "plain") -> MIMEPart {
        MIMEPart(content: .text(text, subtype: subtype))
    }

    /// A file: an attachment, or an inline image when `contentID` is given for `cid:` references.
    package static func file(
        _ data: Data, mediaType: String, filename: String, disposition: Disposition, contentID: String? = nil
    ) -> MIMEPart {
        MIMEPart(
            content: .binary(data, mediaType: mediaType), filename: filename, disposition: disposition,
            contentID: contentID)
    }

    /// A multipart container.
    package static func multipart(_ subtype: String, _ parts: [MIMEPart]) -> MIMEPart {
        MIMEPart(content: .multipart(subtype: subtype, parts: parts))
    }

    /// A picture for `report`: its bytes, media type and file name, and for inline use a Content-ID.
    package struct Image: Sendable {
        /// The file's bytes.
        package var data: Data
        /// `image/png`, `image/svg+xml`, …
        package var mediaType: String
        /// The name readers show and save under.
        package var filename: String
        /// The Content-ID (without angle brackets) HTML refers to as `cid:…`; nil for attachments.
        package var contentID: String?

        /// Creates an image.
        package init(data: Data, mediaType: String, filename: String, contentID: String? = nil) {
            self.data = data
            self.mediaType = mediaType
            self.filename = filename
            self.contentID = contentID
        }
    }

    /// The usual shape of a report mail with pictures:
    ///
    ///     multipart/mixed
    ///     ├─ multipart/alternative
    ///     │  ├─ text/plain                      (the report as text)
    ///     │  └─ multipart/related
    ///     │     ├─ text/html                    (the report, charts as <img src="cid:…">)
    ///     │     └─ image/png inline, Content-ID (each chart, as every mail reader can show it)
    ///     └─ image/svg+xml attachment           (each chart as a vector file, to save or forward)
    ///
    /// Readers that cannot show HTML show the text and still offer the charts as attachments.
    package static func report(text: String, html: String, inline: [Image], attachments: [Image]) -> MIMEPart {
        let inlineParts = inline.map {
            file($0.data, mediaType: $0.mediaType, filename: $0.filename, disposition: .inline, contentID: $0.contentID)
        }
        let htmlPart =
            inlineParts.isEmpty
            ? MIMEPart.text(html, subtype: "html")
            : multipart("related", [MIMEPart.text(html, subtype: "html")] + inlineParts)
        let alternative = multipart("alternative", [MIMEPart.text(text), htmlPart])
        let attachmentParts = attachments.map {
            file($0.data, mediaType: $0.mediaType, filename: $0.filename, disposition: .attachment)
        }
        return attachmentParts.isEmpty ? alternative : multipart("mixed", [alternative] + attachmentParts)
    }

    // MARK: - Serialization

    /// The part's header lines and body, CRLF line ends, no trailing line end. `nextBoundary` hands out
    /// a fresh boundary for each multipart.
    func serialized(nextBoundary: inout () -> String) -> (headers: [String], body: String) {
        var headers: [String] = []
        let body: String
        switch content {
        case .text(let text, let subtype):
            headers.append("Content-Type: text/" + subtype + "; charset=utf-8")
            headers.append("Content-Transfer-Encoding: quoted-printable")
            body = MIMEEncoding.quotedPrintable(text)
        case .binary(let data, let mediaType):
            var typeTokens = [mediaType + ";"]
            if let filename { typeTokens += MIMEEncoding.parameter("name", value: filename) }
            headers.append(MIMEEncoding.foldedHeader("Content-Type", tokens: joinedParameters(typeTokens)))
            headers.append("Content-Transfer-Encoding: base64")
            body = MIMEEncoding.base64Lines(data)
        case .multipart(let subtype, let parts):
            let boundary = nextBoundary()
            headers.append("Content-Type: multipart/" + subtype + ";\r\n boundary=\"" + boundary + "\"")
            var text = ""
            for part in parts {
                let (partHeaders, partBody) = part.serialized(nextBoundary: &nextBoundary)
                text +=
                    "--" + boundary + "\r\n" + partHeaders.joined(separator: "\r\n") + "\r\n\r\n" + partBody + "\r\n"
            }
            text += "--" + boundary + "--"
            body = text
        }
        if let contentID { headers.append("Content-ID: <" + contentID + ">") }
        if let disposition {
            var tokens = [disposition.rawValue + (filename == nil ? "" : ";")]
            if let filename { tokens += MIMEEncoding.parameter("filename", value: filename) }
            headers.append(MIMEEncoding.foldedHeader("Content-Disposition", tokens: joinedParameters(tokens)))
        }
        return (headers, body)
    }

    /// Adds the `;` between parameters (every token but the last).
    private func joinedParameters(_ tokens: [String]) -> [String] {
        guard tokens.count > 2 else { return tokens }
        return tokens.enumerated().map {
            $0.offset == 0 || $0.offset == tokens.count - 1 ? $0.element : $0.element + ";"
        }
    }
}
