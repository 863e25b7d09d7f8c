import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import NIOCore
import PostgresNIO

/// The PostgreSQL backend's store: the commit stage's connection, which
/// migrates the schema, loads device state and commits batches.
///
/// Not thread-safe: one thread (the engine's) owns it, as the `Store`
/// contract says. Each `commit` is one transaction: its positions through
/// `COPY` into a staging table and on into `positions`, its other
/// statements pipelined on the connection (sent together, their results
/// awaited in order), so a batch costs a few round trips plus the server's
/// work.
/// When the server restarts or cannot be reached, a call throws
/// `StoreError` and the next one connects again.
public final class PostgresStore {
    public let settings: PostgresSettings
    let link: PGLink
    /// Device ident → row id, for the devices this store has written or read.
    var deviceIds: [String: Int64] = [:]
    /// Webhook name → subscription id, as the outbox rows name them.
    var webhookIds: [String: Int64] = [:]
    /// The last device id `prune` visited.
    private var pruneCursor: Int64 = 0
    /// Reused for each checkpointed state's encoding.
    private var stateBuffer: [UInt8] = []
    /// Reused for each commit's positions in COPY's text form.
    private var copyText = ""

    /// States per multi-row upsert: a statement's parameters stay far below
    /// PostgreSQL's 65 535 (8 a state).
    static let rowsPerInsert = 500

    /// Device ownership when this store is one node of several (`cluster`).
    public let cluster: PostgresCluster?
    /// How a trip's late fixes add to its distance (`trips.late_detour_m`).
    public let lateDetour: LateDetour

    /// Connects to the database (`settings`), migrating its schema, with
    /// `synchronous_commit` for `synchronous`. With `node`, this process is
    /// that node of a cluster: it tracks a device only while it holds the
    /// device's lease (`leaseMs` long unless renewed), writes a device's
    /// state only then, and names itself on the alerts it raises.
    /// `lateDetour` (from the tracker's settings) measures what late fixes
    /// add to the trips they fall in. Throws `StoreError` naming the
    /// database (never its password) when it cannot.
    public init(
        settings: PostgresSettings, synchronous: SynchronousMode = .normal, node: String? = nil,
        leaseMs: Int64 = 10_000, lateDetour: LateDetour = LateDetour()
    ) throws(StoreError) {
        self.lateDetour = lateDetour
        var s = settings
        s.synchronousCommit = synchronous.postgres
        self.settings = s
        link = PGLink(
            s, name: "fleetd writer" + (node.map { " \($0)" } ?? ""),
            setup: ["SET synchronous_commit = \(s.synchronousCommit)"])
        cluster = node.map { PostgresCluster(settings: s, node: $0, leaseMs: leaseMs) }
        try PGSchema.migrate(link)
        try link.session("cannot read devices") { s in
            for r in try s.query("SELECT id, ident FROM devices") {
                deviceIds[try r[1]] = try r[0]
            }
        }
    }

    /// Every device's persisted tracking state, by device ident.
    public func loadStates() throws(StoreError) -> [String: DeviceState] {
        try link.session("cannot read device state") { s in try PGStateRows.read(s, device: nil) }
    }

    /// Like `SQLiteStore.forEachFixAfterCheckpoint`: each device's stored
    /// fixes after its state's `lastTime`, in time order, `late` ones left
    /// out. One query per device, pipelined a thousand at a time.
    public func forEachFixAfterCheckpoint(
        _ states: [String: DeviceState], _ body: (String, [Fix]) throws -> Void
    ) throws(StoreError) {
        let devices = deviceIds.sorted { $0.value < $1.value }
        try link.session("cannot replay fixes after the state checkpoint") { s in
            var start = 0
            while start < devices.count {
                let chunk = devices[start..<min(start + 1000, devices.count)]
                start += chunk.count
                let futures = chunk.map { ident, id in
                    s.send(
                        """
                        SELECT time_ms, lat, lon, speed_kmh, ignition, valid, accuracy_m, hdop FROM positions
                        WHERE device_id = $1 AND time_ms > $2 AND disposition != \(FixDisposition.late.rawValue)
                        ORDER BY time_ms
                        """, .of(id, states[ident]?.lastTime ?? .min))
                }
                for ((ident, _), future) in zip(chunk, futures) {
                    let rows = try s.wait(future).rows
                    guard !rows.isEmpty else { continue }
                    var fixes: [Fix] = []
                    fixes.reserveCapacity(rows.count)
                    for row in rows {
                        let r = PGRow(row)
                        fixes.append(try PGRow.replayFix(ident, r))
                    }
                    try body(ident, fixes)
                }
            }
        }
    }

    /// Deletes positions whose fix time is before `cutoffMs`, visiting at
    /// most `maxDevices` devices per call round robin (each delete uses the
    /// (device, time) key), stopping once about `maxRows` are gone.
    public func prune(before cutoffMs: Int64, maxRows: Int = 5000, maxDevices: Int = 64)
        throws(StoreError) -> Int
    {
        try link.transaction("retention failed") { s in
            var ids = try s.query(
                "SELECT id FROM devices WHERE id > $1 ORDER BY id LIMIT $2",
                .of(pruneCursor, maxDevices)
            ).map { r -> Int64 in try r[0] }
            if ids.count < maxDevices {  // wrap round to the first devices
                ids += try s.query(
                    "SELECT id FROM devices WHERE id <= $1 ORDER BY id LIMIT $2",
                    .of(pruneCursor, maxDevices - ids.count)
                ).map { r -> Int64 in try r[0] }
            }
            var deleted = 0
            for id in ids {
                deleted += try s.run(
                    """
                    DELETE FROM positions WHERE device_id = $1 AND time_ms IN
                      (SELECT time_ms FROM positions WHERE device_id = $1 AND time_ms < $2 LIMIT $3)
                    """, .of(id, cutoffMs, maxRows - deleted))
                pruneCursor = id
                if deleted >= maxRows { break }
            }
            return deleted
        }
    }

    /// Writes `batch` in one transaction and returns its alerts as stored,
    /// with their ids. Positions already stored (same device and fix time)
    /// are kept as they were; an alert already stored (same device, time,
    /// type and fence: a batch retried after its commit's answer was lost)
    /// is returned with its first id. On failure nothing of it is stored.
    @discardableResult
    public func commit(_ batch: WriteBatch, committedMs: Int64) throws(StoreError) -> [AlertRecord]
    {
        var added: [String] = []
        do {
            return try link.transaction("commit failed") { s in
                try resolveDevices(batch, s, added: &added)
                var pending: [EventLoopFuture<PostgresQueryResult>] = []
                // Positions: COPY into the session's staging table, then on
                // into positions, leaving out those stored already (COPY
                // itself cannot skip them): three times the rows a second of
                // multi-row INSERT … VALUES (`fleetbench pgstore`).
                copyText.removeAll(keepingCapacity: true)
                for row in batch.positions where row.disposition != .duplicate {
                    PGCopyText.append(row, device: deviceIds[row.fix.device] ?? 0, to: &copyText)
                }
                if !copyText.isEmpty {
                    try s.run(
                        """
                        CREATE TEMP TABLE IF NOT EXISTS fleetd_staging (LIKE positions)
                        ON COMMIT DELETE ROWS
                        """)
                    try s.copy(into: "fleetd_staging", columns: PGCopyText.columns, text: copyText)
                    pending.append(
                        s.send(
                            """
                            INSERT INTO positions SELECT * FROM fleetd_staging
                            ON CONFLICT (device_id, time_ms) DO NOTHING
                            """))
                }
                // Alerts: one statement each (they are few), under the lock
                // that orders alert ids by commit across nodes.
                var alertFutures: [EventLoopFuture<PostgresQueryResult>] = []
                var records: [AlertRecord] = []
                if !batch.alerts.isEmpty {
                    pending.append(
                        s.send("SELECT pg_advisory_xact_lock(\(PGSchema.alertOrderLock))"))
                    records.reserveCapacity(batch.alerts.count)
                    for a in batch.alerts {
                        let details = a.detailsJSON
                        alertFutures.append(
                            s.send(
                                """
                                INSERT INTO alerts (time_ms, device_id, type, fence, lat, lon, committed_ms, details, node)
                                VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)
                                ON CONFLICT (device_id, time_ms, type, fence) DO UPDATE SET time_ms = excluded.time_ms
                                RETURNING id
                                """,
                                .of(
                                    a.time, deviceIds[a.device] ?? 0, a.type.rawValue, a.fence,
                                    a.lat, a.lon, committedMs, details, cluster?.node)))
                        records.append(
                            AlertRecord(
                                id: 0, time: a.time, device: a.device, type: a.type.rawValue,
                                fence: a.fence, lat: a.lat, lon: a.lon, details: details))
                    }
                }
                // A node writes the states of the devices it holds only (a
                // lease lost meanwhile leaves the new holder's state alone),
                // their lease rows locked until the commit ends.
                let holding = try heldDevices(Array(batch.states.keys), s)
                if !batch.states.isEmpty {
                    var b = PostgresBindings(capacity: Self.rowsPerInsert * 8)
                    var n = 0
                    for (device, st) in batch.states where holding?.contains(device) ?? true {
                        b.add(deviceIds[device] ?? 0)
                        b.add(st.lastTime)
                        b.add(st.lat.isNaN ? nil : st.lat)
                        b.add(st.lon.isNaN ? nil : st.lon)
                        b.add(st.positionTime)
                        b.add(st.odometerM)
                        b.add(st.silent)
                        stateBuffer.removeAll(keepingCapacity: true)
                        DeviceStateCodec.encode(st, into: &stateBuffer)
                        b.add(stateBuffer)
                        n += 1
                        if n == Self.rowsPerInsert {
                            pending.append(s.send(Self.upsertStates(n), b))
                            b = PostgresBindings(capacity: Self.rowsPerInsert * 8)
                            n = 0
                        }
                    }
                    if n > 0 { pending.append(s.send(Self.upsertStates(n), b)) }
                }
                for t in batch.trips {
                    pending.append(
                        s.send(
                            """
                            INSERT INTO trips (device_id, start_ms, end_ms, start_lat, start_lon, end_lat, end_lon,
                              start_fence, end_fence, distance_m, max_speed_kmh, fixes, start_odometer_m,
                              end_odometer_m, start_fence_id, end_fence_id, driver)
                            VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17)
                            ON CONFLICT (device_id, start_ms) DO NOTHING
                            """,
                            .of(
                                deviceIds[t.device] ?? 0, t.start.time, t.end.time, t.start.lat,
                                t.start.lon, t.end.lat, t.end.lon, t.startFence, t.endFence,
                                t.distanceM, t.maxSpeedKmh, t.fixes, t.start.odometerM,
                                t.end.odometerM, t.startFenceId, t.endFenceId, t.driver)))
                }
                if let cluster, !batch.releases.isEmpty {
                    var r = PostgresBindings()
                    r.add(cluster.node)
                    r.add(cluster.incarnation)
                    r.add(batch.releases.compactMap { deviceIds[$0] })
                    pending.append(
                        s.send(
                            """
                            DELETE FROM device_leases WHERE node = $1 AND incarnation = $2
                              AND device_id = ANY($3)
                            """, r))
                }
                for c in batch.confirmed {
                    pending.append(
                        s.send(
                            """
                            UPDATE positions SET disposition = \(FixDisposition.accepted.rawValue)
                            WHERE device_id = $1 AND time_ms = $2 AND disposition = \(FixDisposition.jump.rawValue)
                            """, .of(deviceIds[c.device] ?? 0, c.time)))
                }
                // Every statement's answer, in order: the first failure
                // throws and the transaction is rolled back.
                var failure: (any Error)?
                for f in pending {
                    do { _ = try s.wait(f) } catch { failure = failure ?? error }
                }
                for (k, f) in alertFutures.enumerated() {
                    do {
                        records[k].id = try s.wait(f).rows.first.map { try PGRow($0)[0] } ?? 0
                    } catch { failure = failure ?? error }
                }
                if let failure { throw failure }
                try updateLateDetours(batch, s)
                if !batch.outbox.isEmpty { try insertOutbox(batch.outbox, records, s) }
                return records
            }
        } catch {
            for ident in added { deviceIds[ident] = nil }
            throw error
        }
    }

    /// Gives every device the batch names a row id: creates the rows of
    /// devices not yet in the database (in the batch's transaction: on
    /// rollback they go from the cache too, through `added`).
    private func resolveDevices(_ batch: WriteBatch, _ s: PGSession, added: inout [String]) throws {
        var missing = Set<String>()
        for p in batch.positions where deviceIds[p.fix.device] == nil {
            missing.insert(p.fix.device)
        }
        for a in batch.alerts where deviceIds[a.device] == nil { missing.insert(a.device) }
        for d in batch.states.keys where deviceIds[d] == nil { missing.insert(d) }
        for t in batch.trips where deviceIds[t.device] == nil { missing.insert(t.device) }
        for c in batch.confirmed where deviceIds[c.device] == nil { missing.insert(c.device) }
        guard !missing.isEmpty else { return }
        let idents = Array(missing)
        try s.run(
            """
            INSERT INTO devices (ident, created_ms) SELECT unnest($1::text[]), $2
            ON CONFLICT (ident) DO NOTHING
            """, .of(idents, WallClock.system.nowMs()))
        for r in try s.query("SELECT id, ident FROM devices WHERE ident = ANY($1)", .of(idents)) {
            let ident: String = try r[1]
            deviceIds[ident] = try r[0]
            added.append(ident)
        }
    }

    /// Of `devices`, those whose lease this process holds, their lease rows
    /// locked (`FOR SHARE`) until the transaction ends; nil for a node of
    /// its own (it holds every device).
    private func heldDevices(_ devices: [String], _ s: PGSession) throws -> Set<String>? {
        guard let cluster else { return nil }
        guard !devices.isEmpty else { return [] }
        var b = PostgresBindings()
        b.add(devices.compactMap { deviceIds[$0] })
        b.add(cluster.node)
        b.add(cluster.incarnation)
        return Set(
            try s.query(
                """
                SELECT d.ident FROM device_leases l JOIN devices d ON d.id = l.device_id
                WHERE l.device_id = ANY($1) AND l.node = $2 AND l.incarnation = $3
                FOR SHARE OF l
                """, b
            ).map { r -> String in try r[0] })
    }

    /// `VALUES` of `rows` tuples of `columns` parameters each.
    static func values(_ rows: Int, _ columns: Int) -> String {
        (0..<rows).map { r in
            "(" + (1...columns).map { "$\(r * columns + $0)" }.joined(separator: ",") + ")"
        }.joined(separator: ",")
    }

    /// The device state upsert for `rows` rows.
    static func upsertStates(_ rows: Int) -> String {
        """
        INSERT INTO device_state (device_id, last_time_ms, lat, lon, position_time_ms,
          odometer_m, silent, state)
        VALUES \(values(rows, 8))
        ON CONFLICT (device_id) DO UPDATE SET
          last_time_ms = excluded.last_time_ms, lat = excluded.lat, lon = excluded.lon,
          position_time_ms = excluded.position_time_ms, odometer_m = excluded.odometer_m,
          silent = excluded.silent, state = excluded.state
        """
    }
}
