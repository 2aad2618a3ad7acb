import Foundation

/// `max_possible_day_quantity` and `possible` from `logrequests/evaluate`.
public struct LogEvaluation: Sendable, Decodable, Equatable {
    public var possible: Bool
    /// Days one request may span now; can be zero or negative when the quota is used up.
    public var maxPossibleDayQuantity: Int

    enum CodingKeys: String, CodingKey {
        case possible
        case maxPossibleDayQuantity = "max_possible_day_quantity"
    }
}

/// One prepared part of a processed log request.
public struct LogPart: Sendable, Decodable, Equatable {
    public var partNumber: Int
    public var size: Int?

    enum CodingKeys: String, CodingKey {
        case partNumber = "part_number"
        case size
    }
}

/// A log request as the API describes it.
public struct LogRequest: Sendable, Decodable, Equatable {
    public var requestID: Int
    public var counterID: Int?
    public var source: String?
    public var date1: String?
    public var date2: String?
    public var fields: [String]?
    public var status: String
    public var size: Int?
    public var parts: [LogPart]?

    enum CodingKeys: String, CodingKey {
        case requestID = "request_id"
        case counterID = "counter_id"
        case source, date1, date2, fields, status, size, parts
    }

    /// Statuses after which the request will never become `processed`.
    public var hasFailed: Bool { ["canceled", "processing_failed", "cleaned_by_user", "cleaned_automatically_as_too_old"].contains(status) }
}

struct LogRequestEnvelope: Decodable { let logRequest: LogRequest
    enum CodingKeys: String, CodingKey { case logRequest = "log_request" }
}

struct LogRequestList: Decodable { let requests: [LogRequest] }

struct LogEvaluationEnvelope: Decodable { let evaluation: LogEvaluation
    enum CodingKeys: String, CodingKey { case evaluation = "log_request_evaluation" }
}
