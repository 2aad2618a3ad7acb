import CSQLite
import Foundation

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
package final class HistoryGeneration: @unchecked Sendable {
    // @unchecked: `database`, `inode`, `openings` are touched only by the one caller whose round is
    // reading (`reading`); the rounds and their result only under `condition`.

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
    private var database: Database?
    private var inode: UInt64 = 0
    private var openings = 0
    /// Callers at once share reads: a caller takes the result of the first read that began after it
    /// came (so it sees every commit made before), begun by itself or by another caller.
    private let condition = NSCondition()
    private var started: UInt64 = 0
    private var finished: UInt64 = 0
    private var reading = false
    private var result: Stamp?

    package init(path: String) { self.path = path }

    /// The file's stamp now; nil when there is no history file (yet), it is in memory, or it cannot be
    /// read: nothing may then be kept on it.
    package func current() -> Stamp? {
        guard path != ":memory:", !path.isEmpty else { return nil }
        condition.lock()
        let needed = started + 1
        while true {
            if finished >= needed {
                let stamp = result
                condition.unlock()
                return stamp
            }
            if !reading {
                reading = true
                started += 1
                let round = started
                condition.unlock()
                let stamp = read()
                condition.lock()
                result = stamp
                finished = round
                reading = false
                condition.broadcast()
                condition.unlock()
                return stamp
            }
            condition.wait()
        }
    }

    /// Asks the file (one caller at a time).
    private func read() -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            database = nil
            return nil
        }
        let inode = UInt64(info.st_ino)
        if database == nil || self.inode != inode {
            database = nil
            // Read-write without create (the file is there), so WAL's shared memory is always at
            // hand; nothing is ever written on it.
            guard let opened = try? Database(path: path, create: false),
                (try? opened.setBusyTimeout(milliseconds: 100)) != nil
            else { return nil }
            database = opened
            self.inode = inode
            openings += 1
        }
        guard let version = (try? database?.scalar("PRAGMA data_version"))?.int else {
            // Busy or broken: open again next time.
            database = nil
            return nil
        }
        return Stamp(inode: inode, opening: openings, version: version)
    }
}
