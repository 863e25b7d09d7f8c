import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import GRDB
import Testing

@testable import FleetSQLite

/// A database written by an older fleetd is brought up to date on open,
/// its data kept.
@Suite struct MigrationTests {
    /// A database at `path` with the schema as it was after migration `last`
    /// (an older fleetd's file), its folder created.
    static func database(at path: String, upTo last: String) throws -> DatabaseQueue {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let q = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(q, upTo: last)
        return q
    }

    @Test func positionsClusteredByDeviceMoveToArrivalOrderWithTheirIndex() throws {
        let path = temporaryDatabase()
        // The schema as fleetd before v6 left it, with positions in it.
        do {
            let q = try Self.database(
                at: path, upTo: "v5: trips, odometer and the rest of the tracking state")
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
        let w = try SQLiteStore(path: path)
        // Old rows are there, in time order per device, extras intact.
        let r = try SQLiteReader(path: path)
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

extension MigrationTests {
    /// A state row in the text form of v5–v6 is read after the move to the
    /// binary form (v7), and rewritten in the binary form at its next checkpoint.
    @Test func aStateStoredAsTextBeforeV7IsReadAndRewrittenAsBinary() throws {
        let path = temporaryDatabase()
        var state = DeviceState(
            lastTime: 5000, lat: 48.1, lon: 11.5, positionTime: 4000,
            fences: [FenceMembership(fence: "yard", phase: .inside(since: 1000))])
        state.accepted = 3
        state.seq = 3
        state.odometerM = 12.5
        do {
            let q = try Self.database(
                at: path,
                upTo: "v6: positions in arrival order, found by (device, time) through an index")
            try q.write { db in
                try db.execute(
                    sql: "INSERT INTO devices (id, ident, created_ms) VALUES (1, 'a', 0)")
                try db.execute(
                    sql: """
                        INSERT INTO device_state (device_id, last_time_ms, lat, lon, fences,
                          position_time_ms, odometer_m, silent, tracking)
                        VALUES (1, 5000, 48.1, 11.5, ?, 4000, 12.5, 0, ?)
                        """, arguments: [state.fencesText, DeviceStateText.encode(state)])
            }
        }
        let w = try SQLiteStore(path: path)
        #expect(try w.loadStates()["a"] == state)
        var b = WriteBatch()
        state.lastTime = 6000
        b.states["a"] = state
        try w.commit(b, committedMs: 1)
        let row = try DatabaseQueue(path: path).read { db in
            try Row.fetchOne(db, sql: "SELECT fences, tracking, length(state) FROM device_state")
        }
        #expect(row?[0] == "")
        #expect((row?[1] as String?) == nil)
        #expect((row?[2] as Int?) ?? 0 > 0)
        #expect(try SQLiteStore(path: path).loadStates()["a"] == state)
    }

    /// A binary state that cannot be read restarts that device's tracking at
    /// its stored position instead of stopping the daemon.
    @Test func anUnreadableBinaryStateRestartsFromThePosition() throws {
        let path = temporaryDatabase()
        let w = try SQLiteStore(path: path)
        var b = WriteBatch()
        b.states["a"] = DeviceState(
            lastTime: 5000, lat: 48.1, lon: 11.5,
            fences: [FenceMembership(fence: "yard", phase: .inside(since: 1000))])
        try w.commit(b, committedMs: 1)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE device_state SET state = x'01ff'")
        }
        let s = try #require(try SQLiteStore(path: path).loadStates()["a"])
        #expect(s.lastTime == 5000 && s.lat == 48.1 && s.lon == 11.5 && s.fences.isEmpty)
    }
}
