import Foundation
import MetrikaCLI

/// A standard stream closed before metrika started (`metrika report >&-`) is held open on a
/// read-only /dev/null, first of all: a descriptor opened later (the history database, an epoll
/// instance) never lands on 0, 1 or 2, where a report would be written into it or fail with
/// `Invalid argument`; a write to it fails as a closed stream does (EBADF), said as "it is closed".
private func holdClosedStandardStreams() {
    for descriptor: Int32 in [0, 1, 2] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
        let held = open("/dev/null", O_RDONLY)
        if held >= 0, held != descriptor {
            _ = dup2(held, descriptor)
            close(held)
        }
    }
}
holdClosedStandardStreams()

#if os(Linux)
    /// One malloc arena: metrika is a short-lived CLI whose network threads hand each page to the main
    /// task, and glibc's per-thread arenas left a 100,000-row report holding ~20 MiB it no longer used
    /// (bench a: 80 → 62 MiB peak, same time). `mallopt` is looked up at run time because Glibc's Swift
    /// module does not export <malloc.h>; where it is missing nothing changes.
    private func limitMallocArenas() {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let M_ARENA_MAX: Int32 = -8
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(M_ARENA_MAX, 1)
    }
    limitMallocArenas()
#endif

/// A core file would hold the token (and a refresh token) in plain text: no core files, ever, as
/// ssh-agent and gpg do. The hard limit too, so neither metrika nor a child it starts can raise it.
private func forbidCoreFiles() {
    var none = rlimit(rlim_cur: 0, rlim_max: 0)
    #if os(Linux)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
    #else
        _ = setrlimit(RLIMIT_CORE, &none)
    #endif
}
forbidCoreFiles()

// A closed stdout pipe (`metrika report … | head`) must not kill the process mid-write: the write
// fails with EPIPE instead, and CLI.run ends quietly with status 141.
signal(SIGPIPE, SIG_IGN)

exit(await CLI.run(arguments: Array(CommandLine.arguments.dropFirst()), context: .live()))
