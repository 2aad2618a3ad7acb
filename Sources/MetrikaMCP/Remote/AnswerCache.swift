import Foundation
import MetrikaRender
import MetrikaStore
import Synchronization

/// The answers of `metrika mcp --listen` to questions the history answers (a `get_report` time
/// series or portfolio), kept so that the same question asked again is answered without building the
/// report again: a team's assistants ask the same few questions many times.
///
/// An answer is kept under everything it depends on (`Key`): the member's counters (never served to
/// a member who may read other counters), the protocol revision, the tool and its arguments (keys
/// sorted), the clock's minute (relative periods, today's "not over yet", the hour of a day compared
/// like for like) and the history database's stamp (`HistoryGeneration`: any write to it, by this
/// server or any other process, is a new stamp, so a sync is never hidden). Since an answer also
/// carries what the API says live (the period's chart annotations), an entry lives at most `lifetime`.
/// The JSON-RPC id is not part of it: the answer is kept without its id and given the asking
/// request's. Bounded in bytes: the least recently used answers go first.
package final class AnswerCache: Sendable {
    package struct Key: Hashable, Sendable {
        /// The member's counters, sorted ("*": all of the server's).
        package var scope: String
        /// `2025-11-25`, or `stateless 2026-07-28`.
        package var revision: String
        package var tool: String
        /// The arguments as canonical JSON (object keys sorted).
        package var arguments: String
        /// Minutes since 1970 of the clock metrika takes as now.
        package var minute: Int
        package var generation: HistoryGeneration.Stamp

        package init(
            scope: [Int]?, revision: String, tool: String, arguments: JSONValue, minute: Int,
            generation: HistoryGeneration.Stamp
        ) {
            self.scope = scope.map { $0.sorted().map(String.init).joined(separator: ",") } ?? "*"
            self.revision = revision
            self.tool = tool
            self.arguments = AnswerCache.canonical(arguments).serialized()
            self.minute = minute
            self.generation = generation
        }

        var bytes: Int { scope.utf8.count + revision.utf8.count + tool.utf8.count + arguments.utf8.count + 64 }
    }

    private struct Entry {
        /// The response line after its id: `,"result":{…}}`.
        var tail: String
        var bytes: Int
        var born: ContinuousClock.Instant
        var used: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var tick: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    package let capacityBytes: Int
    package let lifetime: Duration
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())

    /// `capacityBytes`: the answers' text and keys together; `lifetime`: how long an answer is kept at most.
    package init(
        capacityBytes: Int = 4 << 20, lifetime: Duration = .seconds(60),
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.capacityBytes = capacityBytes
        self.lifetime = lifetime
        self.clock = clock
    }

    /// The response line kept under `key`, with `id` (the request's id as its JSON text) for its id.
    package func answer(for key: Key, id: String) -> String? {
        let now = clock()
        let tail = state.withLock { state -> String? in
            guard var entry = state.entries[key] else {
                state.misses += 1
                return nil
            }
            guard now - entry.born < lifetime else {
                state.entries[key] = nil
                state.bytes -= entry.bytes
                state.misses += 1
                return nil
            }
            state.tick += 1
            entry.used = state.tick
            state.entries[key] = entry
            state.hits += 1
            return entry.tail
        }
        return tail.map { Self.prefix(id: id) + $0 }
    }

    /// Keeps `line`, the response to the request whose id is `id`, under `key`; an answer larger than a
    /// quarter of the capacity is not kept.
    package func keep(_ line: String, id: String, for key: Key) {
        let prefix = Self.prefix(id: id)
        guard line.hasPrefix(prefix) else { return }
        let tail = String(line.utf8.dropFirst(prefix.utf8.count))!
        let bytes = tail.utf8.count + key.bytes
        guard bytes <= capacityBytes / 4 else { return }
        let now = clock()
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.bytes }
            // Answers of an older stamp or minute are never asked for again: they go first.
            if state.bytes + bytes > capacityBytes {
                for (old, entry) in state.entries where old.generation != key.generation || old.minute != key.minute {
                    state.entries[old] = nil
                    state.bytes -= entry.bytes
                }
            }
            while state.bytes + bytes > capacityBytes,
                let oldest = state.entries.min(by: { $0.value.used < $1.value.used })
            {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.bytes
            }
            state.tick += 1
            state.entries[key] = Entry(tail: tail, bytes: bytes, born: now, used: state.tick)
            state.bytes += bytes
        }
    }

    /// The bytes kept, the answers kept, and the hits and misses so far.
    package var usage: (bytes: Int, answers: Int, hits: Int, misses: Int) {
        state.withLock { ($0.bytes, $0.entries.count, $0.hits, $0.misses) }
    }

    private static func prefix(id: String) -> String { "{\"jsonrpc\":\"2.0\",\"id\":" + id }

    /// `value` with every object's members sorted by name (arrays keep their order).
    static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(
                members.map { ($0.0, canonical($0.1)) }.enumerated().sorted {
                    $0.element.0 != $1.element.0 ? $0.element.0 < $1.element.0 : $0.offset < $1.offset
                }.map(\.element))
        case .array(let items):
            return .array(items.map(canonical))
        default:
            return value
        }
    }
}
