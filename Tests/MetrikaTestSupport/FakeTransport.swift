import Foundation
import MetrikaAPI
import Synchronization

/// A scripted transport (the webhook's and the bot's tests): answers requests from a queue (a 500 once
/// it is empty) and records what was sent.
package final class FakeTransport: HTTPTransport {
    package enum Step: Sendable {
        case respond(Int, String, [String: String] = [:])
        case fail(TransportError)
    }

    private struct State {
        var steps: [Step]
        var requests: [HTTPRequest] = []
    }

    private let state: Mutex<State>

    package init(_ steps: [Step]) {
        state = Mutex(State(steps: steps))
    }

    /// Every request sent so far, in order.
    package var requests: [HTTPRequest] { state.withLock { $0.requests } }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
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
