import Foundation

/// An OAuth server's JSON answer as metrika reads it (RFC 6749 and RFC 8628 members), tolerant as
/// the API's wire types are: every member optional, a text member of another type or empty counts as
/// absent, an integer may come as a number (its whole part) or as a numeric text. Untrusted bytes:
/// `decode` runs `JSONPreflight` before the parser sees them.
struct WireOAuthAnswer: Decodable, Sendable, Equatable {
    var error: String?
    var errorDescription: String?
    var deviceCode: String?
    var userCode: String?
    var verificationURL: String?
    var verificationURI: String?
    var interval: Int?
    var accessToken: String?
    var refreshToken: String?
    var expiresIn: Int?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURL = "verification_url"
        case verificationURI = "verification_uri"
        case interval
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) -> String? {
            guard let text = try? container.decode(String.self, forKey: key), !text.isEmpty else { return nil }
            return text
        }
        func integer(_ key: CodingKeys) -> Int? {
            if let number = try? container.decode(Double.self, forKey: key) {
                guard number.isFinite, abs(number) < 1e12 else { return nil }
                return Int(number)
            }
            return (try? container.decode(String.self, forKey: key)).flatMap { Int($0) }
        }
        error = text(.error)
        errorDescription = text(.errorDescription)
        deviceCode = text(.deviceCode)
        userCode = text(.userCode)
        verificationURL = text(.verificationURL)
        verificationURI = text(.verificationURI)
        interval = integer(.interval)
        accessToken = text(.accessToken)
        refreshToken = text(.refreshToken)
        expiresIn = integer(.expiresIn)
    }

    /// The answer in `body`; nil when it is not one JSON object (or nests deeper than the preflight allows).
    static func decode(_ body: Data) -> WireOAuthAnswer? {
        try? JSONDecoder().decode(WireOAuthAnswer.self, from: JSONPreflight.prepare(body))
    }
}
