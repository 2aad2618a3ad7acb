/// The snake_case column name of CSV and JSON for an API name: the one naming function, so every
/// `ym:` name reads the same wherever it appears.
///
/// The part after the last `:` is split into words, each lower-cased and joined with `_`:
/// - `_`, `-`, `.`, spaces and other punctuation separate words (`CROSS_DEVICE…` → `cross_device…`);
/// - a capital after a lower-case letter or a digit starts a word (`pageDepth` → `page_depth`);
/// - a run of capitals is one word (an acronym) that ends before its last capital when a lower-case
///   letter follows (`UTMSource` → `utm_source`, `startURLPath` → `start_url_path`, `visitID` → `visit_id`);
/// - letters after digits start a word (`goal123reaches` → `goal123_reaches`), digits after letters do not
///   (`paramsLevel1` → `params_level1`).
package enum ColumnName {
    /// The column name of `apiName` (`ym:s:UTMSource` → `utm_source`); `column` if nothing is left.
    package static func of(_ apiName: String) -> String {
        let tail = apiName.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? apiName
        let name = words(tail).map { $0.lowercased() }.joined(separator: "_")
        return name.isEmpty ? "column" : name
    }

    /// The words of a camelCase, PascalCase, ACRONYMCase or snake_case name.
    static func words(_ text: String) -> [String] {
        let characters = Array(text)
        var words: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        for (index, character) in characters.enumerated() {
            guard character.isLetter || character.isNumber else {
                flush()
                continue
            }
            if let previous = current.last {
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if character.isUppercase {
                    let acronymEnds = previous.isUppercase && (next?.isLowercase ?? false)
                    if previous.isLowercase || previous.isNumber || acronymEnds { flush() }
                } else if character.isLetter, previous.isNumber {
                    flush()
                }
            }
            current.append(character)
        }
        flush()
        return words
    }
}
