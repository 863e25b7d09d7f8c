import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import GRDB
import GRDBSQLite

/// The SQLite backend's store: the single writing connection, which opens
/// (and migrates) the database, loads device state, and commits batches;
/// and the WAL checkpointer that runs beside it (`startUpkeep`).
///
/// Not thread-safe: one thread (the engine's) owns it. Each `commit` is one
/// transaction; the hot inserts bind values straight into cached prepared
/// statements (SQLite C API on GRDB's connection), with no per-row allocation.
public final class SQLiteStore {
    public let path: String
    let queue: DatabaseQueue
    /// The writer's own automatic checkpoint, in WAL pages (SQLite's
    /// default is 1 000): a backstop behind `WALCheckpointer`, which does
    /// the copying on its own thread. It bounds the WAL at about 256 MiB.
    /// Each time the WAL reaches it, the committing writer copies what the
    /// checkpointer has not yet and syncs the database file (a stall of up
    /// to ~100 ms on a busy disk), and the WAL starts over: at 64 MiB that
    /// came every ~2 s at 27 500 fixes/s and set the p99 acknowledgement
    /// delay (58–97 ms; 16–28 ms at 256 MiB with the checkpointer every 20 ms).
    public static let writerCheckpointPages = 65_536
    /// The WAL checkpoint thread, while upkeep runs (`startUpkeep`).
    var checkpointer: WALCheckpointer?
    /// The last device `deviceId` answered for.
    private var lastDevice: (ident: String, id: Int64) = ("", 0)
    /// Device ident → row id, for every device known to the database.
    private var deviceIds: [String: Int64] = [:]
    /// Webhook name → subscription id, as the outbox rows name them.
    var webhookIds: [String: Int64] = [:]
    /// How a trip's late fixes add to its distance (`trips.late_detour_m`).
    public let lateDetour: LateDetour

    /// Opens the database at `path` in WAL mode, creating its folder and
    /// running pending migrations. `lateDetour` (from the tracker's
    /// settings) measures what late fixes add to the trips they fall in.
    /// Throws `StoreError`.
    public init(
        path: String, synchronous: SynchronousMode = .normal, lateDetour: LateDetour = LateDetour()
    ) throws(StoreError) {
        self.path = path
        self.lateDetour = lateDetour
        do {
            queue = try Schema.openWritable(path: path, synchronous: synchronous)
            try queue.inDatabase {
                try $0.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.writerCheckpointPages)")
            }
            deviceIds = try queue.read { db in
                var ids: [String: Int64] = [:]
                let rows = try Row.fetchCursor(db, sql: "SELECT id, ident FROM devices")
                while let row = try rows.next() { ids[row[1]] = row[0] }
                return ids
            }
        } catch {
            throw StoreError(path: path, action: "cannot open the database", underlying: error)
        }
    }

    /// Every device's persisted tracking state, by device ident.
    public func loadStates() throws(StoreError) -> [String: DeviceState] {
        do {
            return try queue.read { db in try DeviceStateRows.read(db, device: nil) }
        } catch {
            throw StoreError(path: path, action: "cannot read device state", underlying: error)
        }
    }

    /// The fixes each device sent after its checkpointed state, for replay
    /// through the tracker at start-up (state is checkpointed, not written
    /// with every fix): calls `body` once per device that has any, with its
    /// stored fixes later than its state's `lastTime` (all of them for a
    /// device with no state row), in time order, leaving out those stored as
    /// late (they changed no state when they came; every other fix came in
    /// time order). The fixes carry what the tracker reads: time, position,
    /// speed, ignition and validity. Throws `StoreError`.
    public func forEachFixAfterCheckpoint(
        _ states: [String: DeviceState], _ body: (String, [Fix]) throws -> Void
    ) throws(StoreError) {
        do {
            try queue.read { db in
                let select = try db.cachedStatement(
                    sql: """
                        SELECT time_ms, lat, lon, speed_kmh, ignition, valid, accuracy_m, hdop FROM positions
                        WHERE device_id = ? AND time_ms > ? AND disposition != \(FixDisposition.late.rawValue)
                        ORDER BY time_ms
                        """)
                for (ident, id) in deviceIds.sorted(by: { $0.value < $1.value }) {
                    let after = states[ident]?.lastTime ?? .min
                    let rows = try Row.fetchCursor(select, arguments: [id, after])
                    var fixes: [Fix] = []
                    while let r = try rows.next() {
                        let hdop: Double? = r[7]
                        fixes.append(
                            Fix(
                                device: ident, time: r[0], lat: r[1], lon: r[2], speedKmh: r[3],
                                accuracyM: r[6], ignition: r[4], valid: r[5],
                                extra: hdop.map { h in
                                    var x = FixExtra()
                                    x.hdop = h
                                    return x
                                }))
                    }
                    if !fixes.isEmpty { try body(ident, fixes) }
                }
            }
        } catch {
            throw StoreError(
                path: path, action: "cannot replay fixes after the state checkpoint",
                underlying: error)
        }
    }

    /// Deletes positions whose fix time is before `cutoffMs`, at most about
    /// `maxRows` per call in one short transaction, walking the devices round
    /// robin (each delete uses the (device, time) key) and visiting at most
    /// `maxDevices` of them per call, so a call stays short however many
    /// devices there are. Returns rows deleted. Alerts, trips and state are kept.
    public func prune(before cutoffMs: Int64, maxRows: Int = 5000, maxDevices: Int = 256)
        throws(StoreError) -> Int
    {
        var deleted = 0
        do {
            try queue.inTransaction(.immediate) { db in
                let next = try db.cachedStatement(
                    sql: "SELECT id FROM devices WHERE id > ? ORDER BY id LIMIT ?")
                let delete = try db.cachedStatement(
                    sql: """
                        DELETE FROM positions WHERE device_id = ?1 AND time_ms IN
                          (SELECT time_ms FROM positions WHERE device_id = ?1 AND time_ms < ?2 LIMIT ?3)
                        """)
                var ids = try Int64.fetchAll(next, arguments: [pruneCursor, maxDevices])
                if ids.count < maxDevices {  // wrap round to the first devices
                    ids += try Int64.fetchAll(next, arguments: [0, maxDevices - ids.count])
                        .filter { $0 <= pruneCursor }
                }
                for id in ids {
                    try delete.execute(arguments: [id, cutoffMs, maxRows - deleted])
                    deleted += db.changesCount
                    pruneCursor = id
                    if deleted >= maxRows { break }
                }
                return .commit
            }
        } catch {
            throw StoreError(path: path, action: "retention failed", underlying: error)
        }
        return deleted
    }

    /// Reused for each checkpointed state's encoding.
    private var stateBuffer: [UInt8] = []

    /// The last device id `prune` visited.
    private var pruneCursor: Int64 = 0

    /// Writes `batch` in one transaction and returns its alerts as stored
    /// (with their ids). On failure nothing of it is stored
    /// and the error says why; the caller keeps the batch and retries.
    @discardableResult
    public func commit(_ batch: WriteBatch, committedMs: Int64) throws(StoreError) -> [AlertRecord]
    {
        var added: [String] = []
        var committed: [AlertRecord] = []
        do {
            try queue.inTransaction(.immediate) { db in
                // Rows go in `Self.rowsPerInsert` at a time, one statement
                // with that many VALUES tuples (a statement's fixed cost per
                // step, paid once per group); the rest one by one. A row
                // without device extras (`Fix.extra`, most JSON and NMEA
                // fixes) goes in by the statement naming only the columns
                // every fix has (`basicColumns`; the rest stay NULL): half
                // the parameters bound and copied per row. Rows keep their
                // order: a group is stepped, or its rows inserted one by one,
                // before a row of the other kind starts the next.
                let basicOne = try db.cachedStatement(sql: Self.insertPositions[0][0])
                    .sqliteStatement
                let basicGroup = try db.cachedStatement(sql: Self.insertPositions[0][1])
                    .sqliteStatement
                let fullOne = try db.cachedStatement(sql: Self.insertPositions[1][0])
                    .sqliteStatement
                let fullGroup = try db.cachedStatement(sql: Self.insertPositions[1][1])
                    .sqliteStatement
                // Rows are read in place (a row is ~260 bytes with a string
                // and an array to retain: no copy of each).
                try batch.positions.withUnsafeBufferPointer { rows in
                    var held = 0
                    var heldExtras = false  // the group's rows carry extras
                    var groupStart = 0  // index in `rows` of the group's first row
                    for i in rows.indices where rows[i].disposition != .duplicate {
                        let extras = rows[i].fix.extra != nil
                        if held > 0, extras != heldExtras {
                            try insertOneByOne(
                                rows[groupStart..<i], heldExtras ? fullOne : basicOne, db, &added)
                            held = 0
                        }
                        if held == 0 {
                            groupStart = i
                            heldExtras = extras
                        }
                        let group = extras ? fullGroup : basicGroup
                        let columns = extras ? Self.positionColumns : Self.basicColumns
                        let id = try deviceId(rows[i].fix.device, db: db, added: &added)
                        bindPosition(
                            group, at: Int32(held * columns), rows[i], device: id, extras: extras)
                        held += 1
                        if held == Self.rowsPerInsert {
                            try step(group, db)
                            held = 0
                        }
                    }
                    // The last partial group: row by row.
                    if held > 0 {
                        try insertOneByOne(
                            rows[groupStart...], heldExtras ? fullOne : basicOne, db, &added)
                    }
                }
                if !batch.alerts.isEmpty {
                    // Like positions: `rowsPerInsert` rows per statement, the
                    // rest one by one. The rows of one statement get
                    // consecutive ids (AUTOINCREMENT, one writer), the last
                    // of them `lastInsertedRowID`.
                    let one = try db.cachedStatement(sql: Self.insertAlerts[0]).sqliteStatement
                    let group = try db.cachedStatement(sql: Self.insertAlerts[1]).sqliteStatement
                    committed.reserveCapacity(batch.alerts.count)
                    let grouped = batch.alerts.count - batch.alerts.count % Self.rowsPerInsert
                    try batch.alerts.withUnsafeBufferPointer { alerts in
                        for k in alerts.indices {
                            // Read in place (`alerts[k].…`): a copy of the
                            // alert retained its strings and details.
                            let st = k < grouped ? group : one
                            let base =
                                k < grouped ? Int32(k % Self.rowsPerInsert * Self.alertColumns) : 0
                            let details = alerts[k].detailsJSON
                            let type = alerts[k].type.rawValue
                            sqlite3_bind_int64(st, base + 1, alerts[k].time)
                            sqlite3_bind_int64(
                                st, base + 2,
                                try deviceId(alerts[k].device, db: db, added: &added))
                            bindText(st, base + 3, type)
                            bindText(st, base + 4, alerts[k].fence)
                            bindDouble(st, base + 5, alerts[k].lat)
                            bindDouble(st, base + 6, alerts[k].lon)
                            sqlite3_bind_int64(st, base + 7, committedMs)
                            bindText(st, base + 8, details)
                            committed.append(
                                AlertRecord(
                                    id: 0, time: alerts[k].time, device: alerts[k].device,
                                    type: type, fence: alerts[k].fence, lat: alerts[k].lat,
                                    lon: alerts[k].lon, details: details))
                            if k >= grouped || k % Self.rowsPerInsert == Self.rowsPerInsert - 1 {
                                try step(st, db)
                                let rows = k >= grouped ? 1 : Self.rowsPerInsert
                                let last = db.lastInsertedRowID
                                for j in 0..<rows { committed[k - j].id = last - Int64(j) }
                            }
                        }
                    }
                }
                if !batch.outbox.isEmpty {
                    // What the subscriptions are owed of these alerts, in the
                    // same transaction: a row per run of alerts owed alike.
                    try insertOutbox(batch.outbox, committed, db)
                }
                if !batch.states.isEmpty {
                    // Like positions: groups of `rowsPerInsert` rows per statement.
                    let one = try db.cachedStatement(sql: Self.upsertStates[0]).sqliteStatement
                    let group = try db.cachedStatement(sql: Self.upsertStates[1]).sqliteStatement
                    let grouped = batch.states.count - batch.states.count % Self.rowsPerInsert
                    for (k, (device, st)) in batch.states.enumerated() {
                        let u = k < grouped ? group : one
                        let base =
                            k < grouped ? Int32(k % Self.rowsPerInsert * Self.stateColumns) : 0
                        sqlite3_bind_int64(u, base + 1, try deviceId(device, db: db, added: &added))
                        sqlite3_bind_int64(u, base + 2, st.lastTime)
                        bindDouble(u, base + 3, st.lat.isNaN ? nil : st.lat)
                        bindDouble(u, base + 4, st.lon.isNaN ? nil : st.lon)
                        sqlite3_bind_int64(u, base + 5, st.positionTime)
                        sqlite3_bind_double(u, base + 6, st.odometerM)
                        sqlite3_bind_int64(u, base + 7, st.silent ? 1 : 0)
                        stateBuffer.removeAll(keepingCapacity: true)
                        DeviceStateCodec.encode(st, into: &stateBuffer)
                        stateBuffer.withUnsafeBytes {
                            _ = sqlite3_bind_blob(
                                u, base + 8, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
                        }
                        if k >= grouped || k % Self.rowsPerInsert == Self.rowsPerInsert - 1 {
                            try step(u, db)
                        }
                    }
                }
                var newTrips: [(device: Int64, id: Int64, start: Int64, end: Int64)] = []
                if !batch.trips.isEmpty {
                    let insertTrip = try db.cachedStatement(
                        sql: """
                            INSERT INTO trips (device_id, start_ms, end_ms, start_lat, start_lon, end_lat, end_lon,
                              start_fence, end_fence, distance_m, max_speed_kmh, fixes, start_odometer_m,
                              end_odometer_m, start_fence_id, end_fence_id, driver)
                            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
                            """)
                    for t in batch.trips {
                        try insertTrip.execute(arguments: [
                            try deviceId(t.device, db: db, added: &added), t.start.time, t.end.time,
                            t.start.lat, t.start.lon, t.end.lat, t.end.lon, t.startFence,
                            t.endFence,
                            t.distanceM, t.maxSpeedKmh, t.fixes, t.start.odometerM, t.end.odometerM,
                            t.startFenceId, t.endFenceId, t.driver,
                        ])
                        newTrips.append(
                            (
                                try deviceId(t.device, db: db, added: &added), db.lastInsertedRowID,
                                t.start.time, t.end.time
                            ))
                    }
                }
                if !batch.confirmed.isEmpty {
                    let update = try db.cachedStatement(
                        sql: """
                            UPDATE positions SET disposition = \(FixDisposition.accepted.rawValue)
                            WHERE device_id = ? AND time_ms = ? AND disposition = \(FixDisposition.jump.rawValue)
                            """)
                    for c in batch.confirmed {
                        try update.execute(arguments: [
                            try deviceId(c.device, db: db, added: &added), c.time,
                        ])
                    }
                }
                try updateLateDetours(newTrips: newTrips, batch, db, added: &added)
                return .commit
            }
        } catch {
            for ident in added { deviceIds[ident] = nil }
            lastDevice = ("", 0)  // it may name a row the rollback removed
            throw StoreError(path: path, action: "commit failed", underlying: error)
        }
        return committed
    }

    /// Parameters of a stored position and of a device state's upsert, and
    /// rows per multi-row insert.
    static let positionColumns = 26
    static let stateColumns = 8
    static let alertColumns = 8
    static let rowsPerInsert = 16

    /// Parameters of a stored position without device extras: the first
    /// `basicColumns` of the insert's columns.
    static let basicColumns = 13

    /// The position inserts, without and with device extras
    /// (`insertPositions[extras ? 1 : 0]`), each for one row and for
    /// `rowsPerInsert` rows.
    static let insertPositions: [[String]] = [basicColumns, positionColumns].map { columns in
        let names = Array(
            """
            device_id, time_ms, lat, lon, speed_kmh, course, alt_m, accuracy_m, sats, ignition,
             valid, disposition, received_ms, priority, movement, gsm_signal, ext_voltage_mv,
             odometer_m, gnss_status, fix_quality, hdop, io, io_codec, battery, charging, attributes
            """.split(separator: ",").prefix(columns)
        ).joined(separator: ",")
        let tuple = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
        return [1, rowsPerInsert].map { rows in
            """
            INSERT OR IGNORE INTO positions (\(names))
            VALUES \(Array(repeating: tuple, count: rows).joined(separator: ","))
            """
        }
    }

    /// The alert insert (`alertColumns` parameters a row) for one row and for
    /// `rowsPerInsert` rows.
    static let insertAlerts: [String] = [1, rowsPerInsert].map { rows in
        """
        INSERT INTO alerts (time_ms, device_id, type, fence, lat, lon, committed_ms, details)
        VALUES \(Array(repeating: "(?,?,?,?,?,?,?,?)", count: rows).joined(separator: ","))
        """
    }

    /// The device state upsert (`stateColumns` parameters a row) for one row and for
    /// `rowsPerInsert` rows.
    static let upsertStates: [String] = [1, rowsPerInsert].map { rows in
        """
        INSERT INTO device_state (device_id, last_time_ms, lat, lon, fences, position_time_ms,
          odometer_m, silent, tracking, state)
        VALUES \(Array(repeating: "(?,?,?,?,'',?,?,?,NULL,?)", count: rows).joined(separator: ","))
        ON CONFLICT(device_id) DO UPDATE SET
          last_time_ms = excluded.last_time_ms, lat = excluded.lat,
          lon = excluded.lon, fences = '',
          position_time_ms = excluded.position_time_ms,
          odometer_m = excluded.odometer_m, silent = excluded.silent,
          tracking = NULL, state = excluded.state
        """
    }

    /// Inserts the rows of `rows` (duplicates skipped) one by one with `one`,
    /// the single-row insert of their kind (with extras or without).
    private func insertOneByOne(
        _ rows: Slice<UnsafeBufferPointer<PositionRow>>, _ one: OpaquePointer?, _ db: Database,
        _ added: inout [String]
    ) throws {
        for i in rows.indices where rows[i].disposition != .duplicate {
            let id = try deviceId(rows[i].fix.device, db: db, added: &added)
            bindPosition(one, at: 0, rows[i], device: id, extras: rows[i].fix.extra != nil)
            try step(one, db)
        }
    }

    /// Binds `row` to parameters `base + 1 ... base + positionColumns` of
    /// `s` (`base + basicColumns` without `extras`: `row` has none).
    @inline(__always)
    private func bindPosition(
        _ s: OpaquePointer?, at base: Int32, _ row: PositionRow, device id: Int64, extras: Bool
    ) {
        sqlite3_bind_int64(s, base + 1, id)
        sqlite3_bind_int64(s, base + 2, row.fix.time)
        sqlite3_bind_double(s, base + 3, row.fix.lat)
        sqlite3_bind_double(s, base + 4, row.fix.lon)
        bindDouble(s, base + 5, row.fix.speedKmh)
        bindDouble(s, base + 6, row.fix.course)
        bindDouble(s, base + 7, row.fix.altM)
        bindDouble(s, base + 8, row.fix.accuracyM)
        bindInt(s, base + 9, row.fix.sats.map { Int64($0) })
        bindInt(s, base + 10, row.fix.ignition.map { $0 ? 1 : 0 })
        sqlite3_bind_int64(s, base + 11, row.fix.valid ? 1 : 0)
        sqlite3_bind_int64(s, base + 12, Int64(row.disposition.rawValue))
        sqlite3_bind_int64(s, base + 13, row.receivedMs)
        guard extras else { return }
        let x = row.fix.extra
        bindInt(s, base + 14, x?.priority.map { Int64($0) })
        bindInt(s, base + 15, x?.movement.map { $0 ? 1 : 0 })
        bindInt(s, base + 16, x?.gsmSignal.map { Int64($0) })
        bindInt(s, base + 17, x?.externalVoltageMv.map { Int64($0) })
        bindInt(s, base + 18, x?.odometerM.map { Int64($0) })
        bindInt(s, base + 19, x?.gnssStatus.map { Int64($0) })
        bindInt(s, base + 20, x?.fixQuality.map { Int64($0) })
        bindDouble(s, base + 21, x?.hdop)
        if let raw = x?.ioRaw {
            _ = raw.withUnsafeBytes {
                sqlite3_bind_blob(s, base + 22, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
            }
            sqlite3_bind_int64(s, base + 23, Int64(x?.ioCodec ?? 0))
        } else {
            sqlite3_bind_null(s, base + 22)
            sqlite3_bind_null(s, base + 23)
        }
        bindDouble(s, base + 24, x?.batteryPercent)
        bindInt(s, base + 25, x?.charging.map { $0 ? 1 : 0 })
        bindText(s, base + 26, x?.attributes)
    }

    func deviceId(_ ident: String, db: Database, added: inout [String]) throws -> Int64 {
        // Rows of one device come in runs (a fix and the alerts it raised):
        // the last answer is checked before hashing the id.
        if ident == lastDevice.ident { return lastDevice.id }
        if let id = deviceIds[ident] {
            lastDevice = (ident, id)
            return id
        }
        // `fleetctl devices add` may have created the row since the cache was filled.
        let insert = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO devices (ident, created_ms) VALUES (?, ?)")
        try insert.execute(arguments: [ident, WallClock.system.nowMs()])
        let select = try db.cachedStatement(sql: "SELECT id FROM devices WHERE ident = ?")
        guard let id = try Int64.fetchOne(select, arguments: [ident]) else {
            throw StoreError(
                path: path, action: "device \(ident)", underlying: ReaderProblem("row vanished"))
        }
        deviceIds[ident] = id
        added.append(ident)
        return id
    }

    @inline(__always)
    private func bindDouble(_ s: OpaquePointer?, _ i: Int32, _ v: Double?) {
        if let v { sqlite3_bind_double(s, i, v) } else { sqlite3_bind_null(s, i) }
    }

    /// Binds `v` as TEXT (copied by SQLite), or NULL.
    @inline(__always)
    func bindText(_ s: OpaquePointer?, _ i: Int32, _ v: String?) {
        guard var v else {
            sqlite3_bind_null(s, i)
            return
        }
        v.withUTF8 { b in
            if let base = b.baseAddress, b.count > 0 {
                _ = sqlite3_bind_text(
                    s, i, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                    Int32(b.count), SQLITE_TRANSIENT)
            } else {
                _ = sqlite3_bind_text(s, i, "", 0, SQLITE_TRANSIENT)
            }
        }
    }

    @inline(__always)
    private func bindInt(_ s: OpaquePointer?, _ i: Int32, _ v: Int64?) {
        if let v { sqlite3_bind_int64(s, i, v) } else { sqlite3_bind_null(s, i) }
    }

    /// SQLite's "copy the bytes now" destructor for bound blobs.
    private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    @inline(__always)
    func step(_ s: OpaquePointer?, _ db: Database) throws {
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: rc),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }
}
