import Foundation

/// `max_possible_day_quantity` and `possible` from `logrequests/evaluate`.
package struct LogEvaluation: Sendable, Decodable, Equatable {
    package var possible: Bool
    /// Days one request may span now; can be zero or negative when the quota is used up.
    package var maxPossibleDayQuantity: Int

    enum CodingKeys: String, CodingKey {
        case possible
        case maxPossibleDayQuantity = "max_possible_day_quantity"
    }
}

/// One prepared part of a processed log request.
package struct LogPart: Sendable, Decodable, Equatable {
    package var partNumber: Int
    package var size: Int?

    enum CodingKeys: String, CodingKey {
        case partNumber = "part_number"
        case size
    }
}

/// A log request as the API describes it.
package struct LogRequest: Sendable, Decodable, Equatable {
    package var requestID: Int
    package var counterID: Int?
    package var source: String?
    package var date1: String?
    package var date2: String?
    package var fields: [String]?
    package var status: String
    package var size: Int?
    package var parts: [LogPart]?

    enum CodingKeys: String, CodingKey {
        case requestID = "request_id"
        case counterID = "counter_id"
        case source, date1, date2, fields, status, size, parts
    }

    /// Statuses after which the request will never become `processed`.
    package var hasFailed: Bool {
        ["canceled", "processing_failed", "cleaned_by_user", "cleaned_automatically_as_too_old"].contains(status)
    }
}

struct LogRequestEnvelope: Decodable {
    let logRequest: LogRequest
    enum CodingKeys: String, CodingKey { case logRequest = "log_request" }
}

struct LogRequestList: Decodable { let requests: [LogRequest] }

struct LogEvaluationEnvelope: Decodable {
    let evaluation: LogEvaluation
    enum CodingKeys: String, CodingKey { case evaluation = "log_request_evaluation" }
}
