import Foundation
import MetrikaModel

/// Splits one downloaded log part (TSV with a header line) into one file per shard, by the row's
/// `client_id` modulo the number of shards — the shard a `Distributed` table with sharding key
/// `client_id` over equally weighted shards would pick, in the order of `remote_servers` — so that
/// each shard's rows can then be inserted into that shard's own table.
///
/// Spooled to disk, not held: memory stays one 64 KiB buffer per shard whatever the part's size, and
/// a download that breaks half-way has sent nothing to any shard (the files are just removed). The
/// files live in a directory of their own under the temporary directory, removed by `remove()`.
final class ShardSpool {
    let directory: String
    let shardCount: Int
    let keyField: String
    private var files: [FileHandle] = []
    private var buffers: [[UInt8]]
    private var header: [UInt8]?
    private var keyIndex = -1
    /// Bytes of an unfinished line carried to the next chunk.
    private var pending: [UInt8] = []
    private var lineNumber = 0
    private(set) var rows: [Int]

    /// Removes the spool directories of runs that are gone (killed with SIGKILL mid-part): a run
    /// cannot clean up after itself then, so the next one does.
    static func sweepAbandoned() {
        let temporary = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        where name.hasPrefix("metrika-shards-") {
            guard let pid = Int32(name.dropFirst("metrika-shards-".count).prefix { $0 != "-" }), pid != getpid() else {
                continue
            }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: temporary + name) }
        }
    }

    init(shardCount: Int, keyField: String) throws {
        self.shardCount = shardCount
        self.keyField = keyField
        buffers = Array(repeating: [], count: shardCount)
        rows = Array(repeating: 0, count: shardCount)
        directory = NSTemporaryDirectory() + "metrika-shards-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for shard in 0..<shardCount {
            let path = self.path(shard)
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
                let handle = FileHandle(forWritingAtPath: path)
            else {
                throw ClickHouseError.cannotCreateSpool(path: path)
            }
            files.append(handle)
        }
    }

    deinit { remove() }

    func path(_ shard: Int) -> String { directory + "/shard\(shard).tsv" }

    /// Takes the next bytes of the part.
    func write(_ chunk: [UInt8]) throws {
        var start = 0
        while let newline = chunk[start...].firstIndex(of: 10) {
            if pending.isEmpty {
                try line(chunk[start...newline])
            } else {
                pending += chunk[start...newline]
                let whole = pending
                pending = []
                try line(whole[...])
            }
            start = newline + 1
        }
        pending += chunk[start...]
        if pending.count > 64 << 20 {
            throw ClickHouseError.rowTooLong
        }
    }

    /// The part is complete: flushes every shard's file.
    func finish() throws {
        if !pending.isEmpty {
            let last = pending + [10]
            pending = []
            try line(last[...])
        }
        for shard in 0..<shardCount { try flush(shard) }
    }

    /// One line (with its newline): the header goes to every shard, a row to its shard.
    private func line(_ bytes: ArraySlice<UInt8>) throws {
        lineNumber += 1
        if header == nil {
            header = Array(bytes)
            // A byte-order mark before the first name and a carriage return after the last are quirks
            // of real log parts (docs/clickhouse.md); the names are read without them.
            let names = Self.trimmed(bytes.dropLast()).split(separator: 9, omittingEmptySubsequences: false).map {
                name in
                String(decoding: name, as: UTF8.self).replacingOccurrences(of: "\u{FEFF}", with: "")
            }
            guard let index = names.firstIndex(of: keyField) else {
                throw ClickHouseError.noShardingColumn(field: keyField)
            }
            keyIndex = index
            for shard in 0..<shardCount { try append(Array(bytes), to: shard) }
            return
        }
        let fields = Self.trimmed(bytes.dropLast()).split(
            separator: 9, maxSplits: keyIndex + 1, omittingEmptySubsequences: false)
        guard keyIndex < fields.count, let key = UInt64(String(decoding: fields[keyIndex], as: UTF8.self)) else {
            let shown = String(decoding: (keyIndex < fields.count ? fields[keyIndex] : []).prefix(40), as: UTF8.self)
            throw ClickHouseError.badShardingKey(row: lineNumber - 1, field: keyField, value: TerminalText.quote(shown))
        }
        let shard = Int(key % UInt64(shardCount))
        rows[shard] += 1
        try append(Array(bytes), to: shard)
    }

    /// A line without the carriage return of a CRLF line end.
    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line.last == 13 ? line.dropLast() : line
    }

    private func append(_ bytes: [UInt8], to shard: Int) throws {
        buffers[shard] += bytes
        if buffers[shard].count >= 64 << 10 { try flush(shard) }
    }

    private func flush(_ shard: Int) throws {
        guard !buffers[shard].isEmpty else { return }
        do {
            try files[shard].write(contentsOf: buffers[shard])
        } catch {
            throw ClickHouseError.cannotWriteSpool(path: path(shard), reason: Self.systemReason(error))
        }
        buffers[shard].removeAll(keepingCapacity: true)
    }

    /// Streams shard `shard`'s file, 64 KiB at a time.
    func read(_ shard: Int, into write: ([UInt8]) async throws -> Void) async throws {
        guard let handle = FileHandle(forReadingAtPath: path(shard)) else {
            throw ClickHouseError.cannotReadSpool(path: path(shard))
        }
        defer { try? handle.close() }
        while let data = try handle.read(upToCount: 64 << 10), !data.isEmpty {
            try await write(Array(data))
        }
    }

    /// Removes the files and their directory.
    func remove() {
        for file in files { try? file.close() }
        files = []
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension ShardSpool {
    /// The system's words for a failed write (`No space left on device`), not Foundation's wrapper
    /// text around them.
    static func systemReason(_ error: any Error) -> String {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain, let text = strerror(Int32(error.code)) { return String(cString: text) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let text = strerror(Int32(underlying.code))
        {
            return String(cString: text)
        }
        return "the write failed"
    }
}
