import CSQLite
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Which state of the history database a reader last saw: a stamp that changes whenever anything
/// is committed to the file, by this process or any other (a `metrika sync` from cron, another
/// server), so an answer built from the history can be kept under it and never outlive a write.
///
/// It keeps a connection of its own that never writes and asks SQLite's `PRAGMA data_version`, which
/// changes when another connection commits (every connection that writes is another one, the
/// process's own history store included); the file's inode is part of the stamp (a history replaced
/// or removed and made again). Cheap enough for every request: a `stat` and a read of the WAL index.
package final class HistoryGeneration: Sendable {
    /// One state of the file: equal stamps, nothing committed in between.
    package struct Stamp: Hashable, Sendable {
        package var inode: UInt64
        /// Counts the connection's openings: a reopened connection's versions start again.
        package var opening: Int
        package var version: Int

        package init(inode: UInt64, opening: Int, version: Int) {
            self.inode = inode
            self.opening = opening
            self.version = version
        }
    }

    package let path: String
    private struct State {
        var database: Database?
        var inode: UInt64 = 0
        var openings = 0
    }
    private let state = Mutex(State())

    package init(path: String) { self.path = path }

    /// The file's stamp now; nil when there is no history file (yet), it is in memory, or it cannot be
    /// read: nothing may then be kept on it.
    package func current() -> Stamp? {
        guard path != ":memory:", !path.isEmpty else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else {
            state.withLock { $0.database = nil }
            return nil
        }
        let inode = UInt64(info.st_ino)
        return state.withLock { state -> Stamp? in
            if state.database == nil || state.inode != inode {
                state.database = nil
                // Read-write without create (the file is there), so WAL's shared memory is always at
                // hand; nothing is ever written on it.
                guard let database = try? Database(path: path, create: false),
                    (try? database.setBusyTimeout(milliseconds: 100)) != nil
                else { return nil }
                state.database = database
                state.inode = inode
                state.openings += 1
            }
            guard let version = (try? state.database?.scalar("PRAGMA data_version"))?.int else {
                // Busy or broken: open again next time.
                state.database = nil
                return nil
            }
            return Stamp(inode: inode, opening: state.openings, version: version)
        }
    }
}
