import Foundation
import MetrikaModel
import Testing

@testable import MetrikaWarehouse

/// A part's rows split over the shards by client_id, whatever the chunk boundaries.
@Suite("Shard spool")
struct ShardSpoolTests {
    static let header = "ym:s:visitID\tym:s:clientID\tym:s:startURL\n"
    static let rows = (1...50).map { "\($0)\t\(1_000_000_000_000 + $0 * 7)\thttps://e.com/\\t\($0)\n" }

    func contents(_ spool: ShardSpool, _ shard: Int) async throws -> String {
        var bytes: [UInt8] = []
        try await spool.read(shard) { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(arguments: [1, 3, 17, 4096])
    func rowsGoToTheShardOfTheirClientWithTheHeaderOnEveryShard(chunkSize: Int) async throws {
        let spool = try ShardSpool(shardCount: 3, keyField: "ym:s:clientID")
        let bytes = Array((Self.header + Self.rows.joined()).utf8)
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            try spool.write(Array(bytes[start..<min(bytes.count, start + chunkSize)]))
        }
        try spool.finish()
        for shard in 0..<3 {
            let expected = Self.rows.filter { UInt64($0.split(separator: "\t")[1])! % 3 == UInt64(shard) }
            #expect(try await contents(spool, shard) == Self.header + expected.joined())
            #expect(spool.rows[shard] == expected.count)
        }
        let directory = spool.directory
        spool.remove()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    /// Quirks of real log parts: a byte-order mark, CRLF line ends, no final line feed. The rows
    /// still reach their client's shard (and keep their bytes: the table's loader reads them).
    @Test func aBOMCRLFAndAMissingLastLineFeedStillPlaceRows() async throws {
        let spool = try ShardSpool(shardCount: 2, keyField: "ym:s:clientID")
        try spool.write(Array("\u{FEFF}ym:s:visitID\tym:s:clientID\r\n1\t10\r\n2\t11\r\n3\t13".utf8))
        try spool.finish()
        #expect(spool.rows == [1, 2])
        #expect(try await contents(spool, 0) == "\u{FEFF}ym:s:visitID\tym:s:clientID\r\n1\t10\r\n")
        #expect(try await contents(spool, 1) == "\u{FEFF}ym:s:visitID\tym:s:clientID\r\n2\t11\r\n3\t13\n")
    }

    @Test func aRowWithoutAWholeNumberClientIsRefusedNamingIt() throws {
        let spool = try ShardSpool(shardCount: 2, keyField: "ym:s:clientID")
        try spool.write(Array((Self.header + Self.rows[0]).utf8))
        #expect(throws: ClickHouseError.badShardingKey(row: 2, field: "ym:s:clientID", value: "abc")) {
            try spool.write(Array("2\tabc\tx\n".utf8))
        }
        let noKey = try ShardSpool(shardCount: 2, keyField: "ym:s:clientID")
        #expect(throws: ClickHouseError.noShardingColumn(field: "ym:s:clientID")) {
            try noKey.write(Array("ym:s:visitID\n1\n".utf8))
        }
    }
}
