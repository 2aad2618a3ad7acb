import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads keys from a raw-mode terminal on a thread of its own and hands each to `handler`. It waits
/// in `poll` with a short timeout, so `stop` ends it within that time without closing the descriptor
/// (which belongs to the shell). End of input (the terminal went away) is handed on as Ctrl-C.
final class KeyReader: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let input: Int32

    init(input: Int32 = 0, handler: @escaping @Sendable (TerminalKey) -> Void) {
        self.input = input
        let thread = Thread { [self] in self.loop(handler) }
        thread.name = "metrika live keys"
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private func loop(_ handler: @Sendable (TerminalKey) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while !stopped.load(ordering: .relaxed) {
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { if ready < 0 { break } else { continue } }
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else {
                if !stopped.load(ordering: .relaxed) { handler(.interrupt) }
                break
            }
            guard !stopped.load(ordering: .relaxed) else { break }
            for key in TerminalKey.keys(in: Array(buffer[0..<count])) { handler(key) }
        }
    }
}
