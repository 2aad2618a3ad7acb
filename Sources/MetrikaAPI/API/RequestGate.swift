import Foundation
import MetrikaModel

/// The quotas a request spends, consulted before it is sent (`MetrikaClient.send`, `streamOnce`):
/// the quota ledger of the history database, shared by every process on the machine.
package protocol RequestGate: Sendable {
    /// Waits until `login` may send one more request (`reporting`: a `/stat/…` one) and counts it;
    /// throws `APIError.quotaPutOff` when the wait would be long. The ticket is given back to `finish`.
    func admit(login: String, reporting: Bool) async throws -> Int64
    /// The request of `ticket` is answered (or failed): no longer in flight.
    func finish(_ ticket: Int64) async
}

/// Whom a request of a client is sent as: one profile's token (through its own transports), the
/// account it acts for (`ulogin`) and the Yandex login whose quotas it spends.
package struct APIRoute: Sendable {
    /// The profile's name (nil: the run's one token, no profile).
    package var profile: String?
    /// The login the quota ledger counts the request against: the sender's, whatever `ulogin` says.
    package var login: String
    /// The account a representative acts for: every request carries `ulogin=` it.
    package var ulogin: String?
    package var transport: any HTTPTransport
    package var streamingTransport: (any StreamingHTTPTransport)?
    /// The token the profile's requests are signed with (its transports' keeper swaps in the current
    /// one); nil: the client's own.
    package var token: String?

    package init(
        profile: String?, login: String, ulogin: String? = nil, transport: any HTTPTransport,
        streamingTransport: (any StreamingHTTPTransport)? = nil, token: String? = nil
    ) {
        self.token = token
        self.profile = profile
        self.login = login
        self.ulogin = ulogin
        self.transport = transport
        self.streamingTransport = streamingTransport ?? (transport as? any StreamingHTTPTransport)
    }
}
