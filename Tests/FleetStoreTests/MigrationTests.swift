import FleetProtocols
import Foundation
import GRDB
import Testing

@testable import FleetStore

/// A database written by an older fleetd is brought up to date on open,
/// its data kept.
@Suite struct MigrationTests {
    @Test func positionsClusteredByDeviceMoveToArrivalOrderWithTheirIndex() throws {
        let path = temporaryDatabase()
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // The schema as fleetd before v6 left it, with positions in it.
        do {
            let q = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(
                q, upTo: "v5: trips, odometer and the rest of the tracking state")
            try q.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO devices (id, ident, created_ms) VALUES (1, 'a', 0), (2, 'b', 0)"
                )
                for (device, t, received) in [(2, 1000, 50), (1, 2000, 10), (1, 1000, 20)] {
                    try db.execute(
                        sql: """
                            INSERT INTO positions (device_id, time_ms, lat, lon, valid, disposition, received_ms, io)
                            VALUES (?, ?, 48.1, 11.5, 1, 0, ?, x'0102')
                            """, arguments: [device, t, received])
                }
            }
        }
        let w = try StoreWriter(path: path)
        // Old rows are there, in time order per device, extras intact.
        let r = try StoreReader(path: path)
        #expect(try r.positions(device: "a").map(\.fix.time) == [1000, 2000])
        #expect(try r.positions(device: "a").first?.fix.extra?.ioRaw == [1, 2])
        #expect(try r.positions(device: "b").map(\.fix.time) == [1000])
        // The (device, time) key still rejects a second copy of a fix.
        var b = WriteBatch()
        b.positions = [
            PositionRow(
                fix: Fix(device: "a", time: 2000, lat: 1, lon: 1), disposition: .accepted,
                receivedMs: 99),
            PositionRow(
                fix: Fix(device: "a", time: 3000, lat: 1, lon: 1), disposition: .accepted,
                receivedMs: 99),
        ]
        try w.commit(b, committedMs: 100)
        #expect(try r.positions(device: "a").map(\.fix.time) == [1000, 2000, 3000])
        #expect(try r.positions(device: "a")[1].fix.lat == 48.1)
        let plan = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(
                db,
                sql:
                    "EXPLAIN QUERY PLAN SELECT * FROM positions WHERE device_id = 1 AND time_ms > 5"
            ).map { $0["detail"] as String }.joined()
        }
        #expect(plan.contains("positions_by_device_time"))
    }
}
