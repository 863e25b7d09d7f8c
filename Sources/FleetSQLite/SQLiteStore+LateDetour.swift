import FleetStorage
import FleetTracking
import GRDB

/// Trips' `late_detour_m`: what their late fixes add to their distance
/// (`LateDetour`), kept in the transaction that stores either.
extension SQLiteStore {
    /// Recomputes `late_detour_m` of every trip that `newTrips` (stored in
    /// this transaction) are, and of every stored trip one of the batch's
    /// `late` fixes falls in, from the trip's stored fixes. Runs after the
    /// batch's positions and trips are written, in its transaction.
    func updateLateDetours(
        newTrips: [(device: Int64, id: Int64, start: Int64, end: Int64)], _ batch: WriteBatch,
        _ db: Database, added: inout [String]
    ) throws {
        var due: [Int64: (device: Int64, start: Int64, end: Int64)] = [:]
        if !newTrips.isEmpty {
            // Through the partial index `positions_late`: only late rows.
            let any = try db.cachedStatement(
                sql: """
                    SELECT 1 FROM positions WHERE device_id = ? AND time_ms > ? AND time_ms < ?
                      AND disposition = \(FixDisposition.late.rawValue) LIMIT 1
                    """)
            for t in newTrips
            where try Bool.fetchOne(any, arguments: [t.device, t.start, t.end]) != nil {
                due[t.id] = (t.device, t.start, t.end)
            }
        }
        if batch.positions.contains(where: { $0.disposition == .late }) {
            let containing = try db.cachedStatement(
                sql: """
                    SELECT id, start_ms, end_ms FROM trips WHERE device_id = ? AND start_ms < ?
                    ORDER BY start_ms DESC LIMIT 1
                    """)
            for row in batch.positions where row.disposition == .late {
                let device = try deviceId(row.fix.device, db: db, added: &added)
                guard
                    let trip = try Row.fetchOne(
                        containing, arguments: [device, row.fix.time])
                else { continue }
                let end: Int64 = trip[2]
                if row.fix.time < end { due[trip[0]] = (device, trip[1], end) }
            }
        }
        guard !due.isEmpty else { return }
        let points = try db.cachedStatement(
            sql: """
                SELECT time_ms, lat, lon, accuracy_m, hdop, disposition FROM positions
                WHERE device_id = ? AND time_ms >= ? AND time_ms <= ? AND valid = 1
                  AND disposition IN (\(FixDisposition.accepted.rawValue), \(FixDisposition.late.rawValue))
                """)
        let update = try db.cachedStatement(sql: "UPDATE trips SET late_detour_m = ? WHERE id = ?")
        for (id, t) in due {
            let fixes = try Row.fetchAll(points, arguments: [t.device, t.start, t.end]).map {
                LateDetour.Point(
                    time: $0[0], lat: $0[1], lon: $0[2], accuracyM: $0[3], hdop: $0[4],
                    late: ($0[5] as Int) == FixDisposition.late.rawValue)
            }
            try update.execute(arguments: [lateDetour.metres(fixes), id])
        }
    }
}
