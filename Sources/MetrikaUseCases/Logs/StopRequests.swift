import Foundation

/// Where requests to stop a job come from: the CLI traps SIGINT and SIGTERM, tests send them by hand.
/// A job watches only while what it runs can stop cleanly when cancelled (a Logs export: downloads,
/// polls and inserts are cancellable); outside a watch a signal does what it always does.
package protocol StopRequests: Sendable {
    /// Starts telling `handler` the signal of each request to stop; calling the returned closure
    /// stops telling (and gives the signals their default action back).
    func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> @Sendable () -> Void
}
