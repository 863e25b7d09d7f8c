import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import GRDB
import Testing

@testable import FleetSQLite

/// Alerts by fence are found through the fence's id slices: the same
/// alerts, in the same order, as a scan of the whole table would give,
/// across slice boundaries, with a cursor and a limit anywhere.
@Suite struct AlertSlicesTests {
    /// Alerts in five runs whose ids jump past slice boundaries (ids 1–…,
    /// then from 16 380, 40 000, 100 000 and 100 010): fences "a", "b" and
    /// "c" in turn, devices "d1" and "d2".
    func store() throws -> (SQLiteStore, String) {
        let path = temporaryDatabase()
        let store = try SQLiteStore(path: path)
        var time: Int64 = 1_700_000_000_000
        for next in [0, 16_380, 40_000, 100_000, 100_010] {
            if next > 0 {
                try store.queue.write { db in
                    try db.execute(
                        sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = 'alerts'",
                        arguments: [next])
                }
            }
            var batch = WriteBatch()
            for i in 0..<9 {
                time += 1000
                let device = i % 2 == 0 ? "d1" : "d2"
                let fix = Fix(device: device, time: time, lat: 48.1, lon: 11.5)
                batch.positions.append(
                    PositionRow(fix: fix, disposition: .accepted, receivedMs: time))
                batch.alerts.append(
                    Alert(
                        type: .geofenceEnter, device: device, time: time,
                        fence: ["a", "b", "c"][i % 3],
                        lat: 48.1, lon: 11.5))
            }
            try store.commit(batch, committedMs: time)
        }
        return (store, path)
    }

    @Test func aFenceReadsAsAScanWould() throws {
        let (_, path) = try store()
        let reader = try SQLiteReader(path: path)
        let all = try reader.alerts(afterId: 0, limit: 1000, filter: AlertFilter())
        #expect(all.count == 45)
        #expect(Set(all.map { AlertSlices.slice($0.id) }).count == 4)
        for fence in ["a", "b", "c", "none"] {
            let expected = all.filter { $0.fence == fence }
            #expect(
                try reader.alerts(afterId: 0, limit: 1000, filter: AlertFilter(fence: fence))
                    == expected)
            // Every cursor and limit: a page ends where the limit says, the
            // next starts after it, across slices.
            for after in [0] + all.map(\.id) {
                for limit in [1, 2, 7, 100] {
                    let page = try reader.alerts(
                        afterId: after, limit: limit, filter: AlertFilter(fence: fence))
                    #expect(page == Array(expected.filter { $0.id > after }.prefix(limit)))
                }
            }
            // Newest first, before every cursor, across slices the other way.
            for before in all.map(\.id) + [Int64.max] {
                for limit in [1, 7, 100] {
                    let page = try reader.alerts(
                        afterId: 0, beforeId: before, newestFirst: true, limit: limit,
                        filter: AlertFilter(fence: fence))
                    #expect(
                        page == Array(expected.filter { $0.id < before }.reversed().prefix(limit)))
                }
            }
        }
        // With other filters beside it.
        let d2InB = try reader.alerts(
            afterId: 0, limit: 1000, filter: AlertFilter(type: "geofence_enter", fence: "b"))
        #expect(d2InB == all.filter { $0.fence == "b" })
        let oneDevice = try reader.alerts(
            afterId: 0, limit: 1000, filter: AlertFilter(device: "d2", fence: "b"))
        #expect(oneDevice == all.filter { $0.fence == "b" && $0.device == "d2" })
    }

    @Test func aFenceQueryTakesTheSliceIndex() throws {
        let (store, _) = try store()
        let plan = try store.queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT a.id FROM alerts a JOIN devices d ON d.id = a.device_id
                    WHERE a.id > 0 AND a.id < ? AND a.fence = 'a' AND \(AlertSlices.condition) ORDER BY a.id DESC LIMIT 10
                    """, arguments: [Int64.max, 1]
            ).map { $0["detail"] as String? ?? "" }.joined(separator: "\n")
        }
        #expect(plan.contains("alerts_by_slice_fence"), "\(plan)")
        let indexes = try store.queue.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'alerts'")
        }
        #expect(!indexes.contains("alerts_by_fence"))
    }
}
