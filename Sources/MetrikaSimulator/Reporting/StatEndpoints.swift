import Foundation

// MARK: - Reporting API (metrika-api.md §2)

extension Simulator {
    func statData(_ request: HTTPRequest) -> HTTPResponse {
        APIError.response(503, "backend_error", "The Reporting API is not simulated yet")
    }

    func statByTime(_ request: HTTPRequest) -> HTTPResponse {
        APIError.response(503, "backend_error", "The Reporting API is not simulated yet")
    }
}

/// Generates statistics.
struct TrafficModel: Sendable {}
