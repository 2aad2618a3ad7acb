import Foundation
import Testing

@testable import MetrikaAPI
@testable import MetrikaModel

/// The answer's `query.currency` and `query.attribution`: read the same by the fast scanner and the
/// decoder; a value of another type is unknown and costs nothing else.
struct QueryEchoMoneyTests {
    static func page(_ query: String) -> String {
        #"{"query":\#(query),"data":[{"dimensions":[{"name":"2026-11-09"}],"metrics":[100,250582.8]}],"total_rows":1,"totals":[100,250582.8]}"#
    }

    @Test func theCurrencyAndModelTheAnswerUsed() throws {
        let text = Self.page(
            #"{"metrics":["ym:s:ecommercePurchases","ym:s:ecommerce<currency>ConvertedRevenue"],"attribution":"CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICK","currency":"BYN"}"#
        )
        let scanned = try #require(try StatDataScanner.scan(Data(text.utf8)))
        #expect(scanned.queryCurrency == "BYN")
        #expect(scanned.queryAttribution == "CROSS_DEVICE_LAST_YANDEX_DIRECT_CLICK")
        #expect(scanned == StatDataScannerTests.decoded(text))
    }

    @Test func anAnswerThatDoesNotSay() throws {
        let text = Self.page(#"{"metrics":["ym:s:visits","ym:s:pageviews"]}"#)
        let scanned = try #require(try StatDataScanner.scan(Data(text.utf8)))
        #expect(scanned.queryCurrency == nil && scanned.queryAttribution == nil)
        #expect(scanned == StatDataScannerTests.decoded(text))
    }

    @Test func aCurrencyOfAnotherTypeIsUnknownNotFatal() throws {
        let text = Self.page(#"{"metrics":["ym:s:visits","ym:s:pageviews"],"currency":643,"attribution":{"x":1}}"#)
        // The scanner gives way; the decoder keeps the metrics' names and drops what it cannot read.
        #expect(try StatDataScanner.scan(Data(text.utf8)) == nil)
        let decoded = try #require(StatDataScannerTests.decoded(text))
        #expect(decoded.queryMetrics == ["ym:s:visits", "ym:s:pageviews"])
        #expect(decoded.queryCurrency == nil && decoded.queryAttribution == nil)
    }

    @Test func theRequestSendsCurrencyAndAttributionOnlyWhenAsked() {
        let plain = StatQuery(ids: [1], metrics: ["ym:s:visits"], date1: "2026-11-09", date2: "2026-11-15")
        #expect(!plain.items.contains { $0.0 == "currency" || $0.0 == "attribution" })
        let asked = StatQuery(
            ids: [1], metrics: ["ym:s:visits"], date1: "2026-11-09", date2: "2026-11-15", currency: "USD",
            attribution: "automatic")
        #expect(asked.items.contains { $0 == ("currency", "USD") })
        #expect(asked.items.contains { $0 == ("attribution", "automatic") })
    }
}
