import FleetStorage
import FleetTracking
import PostgresNIO

/// Trips' `late_detour_m`: what their late fixes add to their distance
/// (`LateDetour`), kept in the transaction that stores either.
extension PostgresStore {
    /// Recomputes `late_detour_m` of every trip of the batch that has late
    /// fixes stored within it, and of every stored trip one of the batch's
    /// `late` fixes falls in, from the trip's stored fixes. Runs after the
    /// batch's positions and trips are written, in its transaction: one
    /// round trip to find them, and two more when there are any.
    func updateLateDetours(_ batch: WriteBatch, _ s: PGSession) throws {
        var newDevices: [Int64] = []
        var newStarts: [Int64] = []
        for t in batch.trips {
            newDevices.append(deviceIds[t.device] ?? 0)
            newStarts.append(t.start.time)
        }
        var lateDevices: [Int64] = []
        var lateTimes: [Int64] = []
        for row in batch.positions where row.disposition == .late {
            lateDevices.append(deviceIds[row.fix.device] ?? 0)
            lateTimes.append(row.fix.time)
        }
        guard !newDevices.isEmpty || !lateDevices.isEmpty else { return }
        var b = PostgresBindings()
        b.add(newDevices)
        b.add(newStarts)
        b.add(lateDevices)
        b.add(lateTimes)
        // The new trips with a late fix inside (through the partial index
        // `positions_late`), and the trip each late fix falls in (a
        // device's latest starting before it, if it ends after it).
        let due = try s.query(
            """
            SELECT t.id FROM unnest($1::bigint[], $2::bigint[]) AS n(device_id, start_ms)
            JOIN trips t ON t.device_id = n.device_id AND t.start_ms = n.start_ms
            WHERE EXISTS (SELECT 1 FROM positions p WHERE p.device_id = t.device_id
              AND p.time_ms > t.start_ms AND p.time_ms < t.end_ms
              AND p.disposition = \(FixDisposition.late.rawValue))
            UNION
            SELECT t.id FROM unnest($3::bigint[], $4::bigint[]) AS l(device_id, time_ms)
            CROSS JOIN LATERAL (SELECT id, end_ms FROM trips WHERE device_id = l.device_id
              AND start_ms < l.time_ms ORDER BY start_ms DESC LIMIT 1) t
            WHERE t.end_ms > l.time_ms
            """, b
        ).map { r -> Int64 in try r[0] }
        guard !due.isEmpty else { return }
        var points: [Int64: [LateDetour.Point]] = [:]
        var p = PostgresBindings()
        p.add(due)
        for r in try s.query(
            """
            SELECT t.id, q.time_ms, q.lat, q.lon, q.accuracy_m, q.hdop, q.disposition
            FROM trips t JOIN positions q ON q.device_id = t.device_id
              AND q.time_ms >= t.start_ms AND q.time_ms <= t.end_ms
            WHERE t.id = ANY($1) AND q.valid
              AND q.disposition IN (\(FixDisposition.accepted.rawValue), \(FixDisposition.late.rawValue))
            """, p)
        {
            let disposition: Int64 = try r[6]
            points[try r[0], default: []].append(
                LateDetour.Point(
                    time: try r[1], lat: try r[2], lon: try r[3], accuracyM: try r[4],
                    hdop: try r[5], late: disposition == Int64(FixDisposition.late.rawValue)))
        }
        let updates = due.map { id in
            s.send(
                "UPDATE trips SET late_detour_m = $1 WHERE id = $2",
                .of(lateDetour.metres(points[id] ?? []), id))
        }
        for u in updates { _ = try s.wait(u) }
    }
}
