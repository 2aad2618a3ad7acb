import Foundation
import MetrikaModel
import Synchronization

/// The profiles of a run over several Yandex logins (`--profile all`, `--profile A,B`), in the config
/// file's order, and which of them reads each counter: the one the API says owns it (`own`, a ulogin
/// profile's account included), else the first that can read it. Learnt from the profiles' counters
/// lists, read once per run (by the first request that needs them).
package final class ProfileRouting: Sendable {
    package let routes: [APIRoute]
    private let owners = Mutex<[Int: Int]?>(nil)
    private let loading = RoutingLoad()

    package init(routes: [APIRoute]) {
        precondition(!routes.isEmpty, "ProfileRouting needs a route")
        self.routes = routes
    }

    /// The route of `index`, or of the first profile.
    func route(_ index: Int?) -> APIRoute { routes[index ?? 0] }

    /// The index of the route that reads `counterID`, once the lists are known.
    func knownOwner(of counterID: Int) -> Int?? {
        owners.withLock { map in map.map { $0[counterID] } }
    }

    /// Records the owners chosen from the lists.
    func learn(_ map: [Int: Int]) {
        owners.withLock { $0 = map }
    }

    /// Whether the lists were read.
    var isLearnt: Bool { owners.withLock { $0 != nil } }

    /// Runs `read` once for the run (later callers wait for the first).
    func learnOnce(_ read: @escaping @Sendable () async throws -> Void) async throws {
        try await loading.once(read)
    }

    /// The merge rule: for each counter, the route whose list says `own`, else the first listing it.
    /// Returns the union in the first lists' order, each counter marked with its profile.
    package static func merge(_ lists: [[Counter]], routes: [APIRoute]) -> (counters: [Counter], owners: [Int: Int]) {
        var owners: [Int: Int] = [:]
        var order: [Int] = []
        var byID: [Int: Counter] = [:]
        for (index, list) in lists.enumerated() {
            for counter in list {
                if let current = owners[counter.id] {
                    let currentOwns = byID[counter.id]?.permission.lowercased() == "own"
                    if !currentOwns, counter.permission.lowercased() == "own", current != index {
                        owners[counter.id] = index
                        byID[counter.id] = counter
                    }
                } else {
                    owners[counter.id] = index
                    byID[counter.id] = counter
                    order.append(counter.id)
                }
            }
        }
        let counters = order.compactMap { id -> Counter? in
            guard var counter = byID[id] else { return nil }
            counter.profile = routes.count > 1 ? owners[id].flatMap { routes[$0].profile } : nil
            return counter
        }
        return (counters, owners)
    }
}

/// One reading shared by concurrent callers.
private actor RoutingLoad {
    private var task: Task<Void, any Error>?

    func once(_ read: @escaping @Sendable () async throws -> Void) async throws {
        if let task { return try await task.value }
        let task = Task { try await read() }
        self.task = task
        try await task.value
    }
}
