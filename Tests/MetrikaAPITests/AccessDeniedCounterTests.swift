import Foundation
import Testing

@testable import MetrikaAPI

/// Issue 40 item 9: an access error carries the counter its request asked for, so each entry point
/// can name it — once — when several counters were asked.
@Suite("Access errors name their counter")
struct AccessDeniedCounterTests {
    static let denied =
        #"{"errors": [{"error_type": "access_denied", "message": "Access is denied"}], "code": 403, "message": "Access is denied"}"#

    @Test func aDeniedCounterReadCarriesItsID() async throws {
        let transport = FakeTransport([.respond(403, Self.denied)])
        await #expect(throws: APIError.accessDenied("Access is denied.", counterID: 424242)) {
            try await makeClient(transport).fetchCounter(id: 424242)
        }
    }

    @Test func theMessageNamesTheCounterOnce() {
        let error = APIError.accessDenied("Access is denied.", counterID: 1003)
        #expect(
            error.messageNamingCounter(.neutral).hasPrefix(
                "Access denied to counter 1003: Access is denied. Check the counter id"),
            "\(error.messageNamingCounter(.neutral))")
        #expect(error.messageNamingCounter(.neutral).components(separatedBy: "1003").count == 2)
        // An answer that names it already is not made to say it twice.
        let named = APIError.accessDenied("Access is denied to counter 9999.", counterID: 9999)
        #expect(named.messageNamingCounter(.neutral).components(separatedBy: "9999").count == 2)
        #expect(
            APIError.accessDenied("Access is denied.").messageNamingCounter(.neutral)
                == APIError.accessDenied("Access is denied.").message)
    }

    @Test(arguments: [
        ("https://api-metrika.yandex.net/management/v1/counter/1003/goals", 1003 as Int?),
        ("https://api-metrika.yandex.net/stat/v1/data?ids=1003&metrics=ym:s:visits", 1003),
        ("https://api-metrika.yandex.net/stat/v1/data/bytime?id=77", 77),
        ("https://api-metrika.yandex.net/stat/v1/data?ids=1001,1003", nil),
        ("https://api-metrika.yandex.net/management/v1/counters", nil)
    ])
    func theCounterIsReadFromTheRequest(url: String, expected: Int?) {
        #expect(APIError.counterID(in: URL(string: url)) == expected)
    }
}
