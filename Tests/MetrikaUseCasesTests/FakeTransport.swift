import Foundation
import Synchronization

@testable import MetrikaAPI

/// A scripted transport for the webhook's tests: answers requests from a queue (a 500 once it is
/// empty) and records what was sent.
final class FakeTransport: HTTPTransport {
    enum Step: Sendable {
        case respond(Int, String, [String: String] = [:])
        case fail(TransportError)
    }

    private struct State {
        var steps: [Step]
        var requests: [HTTPRequest] = []
    }

    private let state: Mutex<State>

    init(_ steps: [Step]) {
        state = Mutex(State(steps: steps))
    }

    /// Every request sent so far, in order.
    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let step = state.withLock { state -> Step in
            state.requests.append(request)
            return state.steps.isEmpty ? .respond(500, "{}") : state.steps.removeFirst()
        }
        switch step {
        case .respond(let status, let body, let headers):
            return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        case .fail(let error):
            throw error
        }
    }
}
