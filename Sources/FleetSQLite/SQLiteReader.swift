import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import GRDB

/// A read-only connection for managers' tools. Reads see WAL snapshots and
/// never block the writer (https://sqlite.org/wal.html).
public final class SQLiteReader: Sendable {
    public let path: String
    private let queue: DatabaseQueue
    /// The database has the v8 columns and tables (users, tokens, audit,
    /// acknowledgements, phone extras): false for one an older fleetd wrote
    /// and no newer one has opened yet.
    private let people: Bool
    /// The database has the v9 webhook tables.
    let hasWebhooks: Bool
    /// The database has the v14 `shares` table.
    private let hasShares: Bool
    /// The database has the v17 groups (`devices.grp`, `users.groups`).
    private let hasGroups: Bool
    /// The database has v18's `users.email` and `notification_rules`.
    private let hasMailRules: Bool

    /// Opens an existing database read-only. Throws `StoreError` when the file
    /// is missing or is not a fleetd database.
    public init(path: String) throws(StoreError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(
                path: path, action: "cannot open the database",
                underlying: ReaderProblem("no such file (start fleetd, or pass --db PATH)"))
        }
        do {
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(5)
            queue = try DatabaseQueue(path: path, configuration: config)
            let (ok, people, hooks, shares, groups, rules) = try queue.read { db in
                (
                    try db.tableExists("alerts") && db.tableExists("positions"),
                    try db.tableExists("users"), try db.tableExists("webhooks"),
                    try db.tableExists("shares"),
                    try db.tableExists("devices")
                        && db.columns(in: "devices").contains { $0.name == "grp" },
                    try db.tableExists("notification_rules")
                )
            }
            guard ok else {
                throw ReaderProblem("not a fleetd database (no alerts/positions tables)")
            }
            self.people = people
            self.hasWebhooks = hooks
            self.hasShares = shares
            self.hasGroups = groups
            self.hasMailRules = rules
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(path: path, action: "cannot open the database", underlying: error)
        }
    }

    /// Alerts with id greater than `afterId` and less than `beforeId`,
    /// newest first if `newestFirst`, at most `limit`.
    public func alerts(
        afterId: Int64, beforeId: Int64, newestFirst: Bool, limit: Int, filter: AlertFilter
    ) throws(StoreError) -> [AlertRecord] {
        // Only the filters given, so that SQLite can take an index for
        // them (`?2 IS NULL OR d.ident = ?2` would read every alert after `afterId`).
        var conditions = ["a.id > ?", "a.id < ?"]
        var arguments: [(any DatabaseValueConvertible)?] = [afterId, beforeId]
        if let device = filter.device {
            conditions.append("a.device_id = (SELECT id FROM devices WHERE ident = ?)")
            arguments.append(device)
        }
        if let range = filter.devices {
            conditions.append(
                "a.device_id IN (SELECT id FROM devices WHERE ident BETWEEN ? AND ?)")
            arguments += [range.lowerBound, range.upperBound]
        }
        if let type = filter.type {
            conditions.append("a.type = ?")
            arguments.append(type)
        }
        if let since = filter.sinceMs {
            conditions.append("a.time_ms >= ?")
            arguments.append(since)
        }
        if let fence = filter.fence {
            conditions.append("a.fence = ?")
            arguments.append(fence)
        }
        if let until = filter.untilMs {
            conditions.append("a.time_ms < ?")
            arguments.append(until)
        }
        if let (condition, values) = scopeCondition(
            filter.scope, from: arguments.count + 1, drivenBy: "alerts")
        {
            conditions.append(condition)
            arguments += values.map { $0 }
        }
        // A fence without a device is found through the fence's id slices
        // (`AlertSlices`), in the order asked, until `limit` alerts are read.
        let bySlice = filter.fence != nil && filter.device == nil
        if bySlice { conditions.append(AlertSlices.condition) }
        let sql = """
            SELECT \(alertColumns)
            FROM alerts a JOIN devices d ON d.id = a.device_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY a.id\(newestFirst ? " DESC" : "") LIMIT ?
            """
        // Cached: the usage report asks once per device with the same text.
        return try read("cannot read alerts") { db in
            let statement = try db.cachedStatement(sql: sql)
            guard bySlice else {
                return try Row.fetchAll(
                    statement, arguments: StatementArguments(arguments + [limit])
                )
                .map(Self.alert)
            }
            let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM alerts") ?? 0
            var out: [AlertRecord] = []
            let low = AlertSlices.slice(afterId + 1)
            let high = AlertSlices.slice(max(0, min(beforeId - 1, newest)))
            var slice = newestFirst ? high : low
            while out.count < limit, slice >= low, slice <= high {
                let args = StatementArguments(arguments + [slice, limit - out.count])
                out += try Row.fetchAll(statement, arguments: args).map(Self.alert)
                slice += newestFirst ? -1 : 1
            }
            return out
        }
    }

    /// One alert, or nil.
    public func alert(id: Int64) throws(StoreError) -> AlertRecord? {
        try read("cannot read alert \(id)") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT \(alertColumns) FROM alerts a JOIN devices d ON d.id = a.device_id
                    WHERE a.id = ?
                    """, arguments: [id]
            ).map(Self.alert)
        }
    }

    var alertColumns: String {
        "a.id, a.time_ms, d.ident, a.type, a.fence, a.lat, a.lon, a.details, "
            + (people ? "a.acked_by, a.acked_ms" : "NULL, NULL")
    }

    static func alert(_ r: Row) -> AlertRecord {
        AlertRecord(
            id: r[0], time: r[1], device: r[2], type: r[3], fence: r[4], lat: r[5], lon: r[6],
            details: r[7], ackedBy: r[8], ackedMs: r[9])
    }

    /// A device's stored positions in time order, `fromMs <= time < toMs`.
    public func positions(
        device: String, fromMs: Int64? = nil, toMs: Int64? = nil, limit: Int = 1_000_000
    ) throws(StoreError) -> [PositionRecord] {
        try read("cannot read positions") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(positionColumns)
                    FROM positions p JOIN devices d ON d.id = p.device_id
                    WHERE d.ident = ?1 AND (?2 IS NULL OR p.time_ms >= ?2) AND (?3 IS NULL OR p.time_ms < ?3)
                    ORDER BY p.time_ms LIMIT ?4
                    """, arguments: [device, fromMs, toMs, limit]
            ).map { Self.position($0, at: 0) }
        }
    }

    /// The 25 columns `position(_:at:)` reads (`p` positions, `d` devices).
    private var positionColumns: String {
        """
        d.ident, p.time_ms, p.lat, p.lon, p.speed_kmh, p.course, p.alt_m, p.accuracy_m,
        p.sats, p.ignition, p.valid, p.disposition, p.priority, p.movement, p.gsm_signal,
        p.ext_voltage_mv, p.odometer_m, p.gnss_status, p.fix_quality, p.hdop, p.io, p.io_codec,
        \(people ? "p.battery, p.charging, p.attributes" : "NULL, NULL, NULL")
        """
    }

    /// A position from the `positionColumns` of `r` that start at column `o`.
    private static func position(_ r: Row, at o: Int) -> PositionRecord {
        var extra = FixExtra()
        extra.priority = r[o + 12]
        extra.movement = r[o + 13]
        extra.gsmSignal = r[o + 14]
        extra.externalVoltageMv = r[o + 15]
        extra.odometerM = r[o + 16]
        extra.gnssStatus = r[o + 17]
        extra.fixQuality = r[o + 18]
        extra.hdop = r[o + 19]
        let blob: Data? = r[o + 20]
        extra.ioRaw = blob.map { Array($0) }
        extra.ioCodec = UInt8(truncatingIfNeeded: (r[o + 21] as Int?) ?? 0)
        extra.batteryPercent = r[o + 22]
        extra.charging = r[o + 23]
        extra.attributes = r[o + 24]
        let fix = Fix(
            device: r[o], time: r[o + 1], lat: r[o + 2], lon: r[o + 3], speedKmh: r[o + 4],
            course: r[o + 5], altM: r[o + 6], accuracyM: r[o + 7], sats: r[o + 8],
            ignition: r[o + 9], valid: r[o + 10], extra: extra == FixExtra() ? nil : extra)
        return PositionRecord(fix: fix, disposition: r[o + 11])
    }

    /// Per device, its accepted positions in `[fromMs, toMs)`. Devices are
    /// the outer loop (`CROSS JOIN` keeps SQLite to that order), each read
    /// through its `(device_id, time_ms)` index: the cost is the period's
    /// positions, not the table's.
    public func positionSpans(device: String?, fromMs: Int64, toMs: Int64) throws(StoreError)
        -> [PositionSpan]
    {
        try read("cannot read positions") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT d.ident, min(p.time_ms), max(p.time_ms), count(*), max(p.speed_kmh)
                    FROM devices d CROSS JOIN positions p ON p.device_id = d.id
                    WHERE p.time_ms >= ?1 AND p.time_ms < ?2 AND p.disposition = 0
                    \(device == nil ? "" : "AND d.ident = ?3")
                    GROUP BY d.id ORDER BY d.ident
                    """,
                arguments: device == nil ? [fromMs, toMs] : [fromMs, toMs, device]
            ).map {
                PositionSpan(
                    device: $0[0], firstMs: $0[1], lastMs: $0[2], count: $0[3], maxSpeedKmh: $0[4])
            }
        }
    }

    /// The fences each device was inside by its newest enter/exit alert per
    /// fence before `beforeMs`.
    public func fencesInside(device: String?, beforeMs: Int64?) throws(StoreError) -> [String:
        [String]]
    {
        var conditions = ["type IN ('geofence_enter', 'geofence_exit')", "fence IS NOT NULL"]
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let device {
            conditions.append("device_id = (SELECT id FROM devices WHERE ident = ?)")
            arguments.append(device)
        }
        if let beforeMs {
            conditions.append("time_ms < ?")
            arguments.append(beforeMs)
        }
        let sql = """
            SELECT d.ident, a.fence FROM alerts a JOIN devices d ON d.id = a.device_id
            WHERE a.type = 'geofence_enter' AND a.id IN (
              SELECT max(id) FROM alerts WHERE \(conditions.joined(separator: " AND "))
              GROUP BY device_id, fence)
            ORDER BY d.ident, a.fence
            """
        let args = StatementArguments(arguments)
        return try read("cannot read alerts") { db in
            var out: [String: [String]] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: args) {
                out[row[0], default: []].append(row[1])
            }
            return out
        }
    }

    /// Devices after `after` with their newest accepted position (found
    /// through the `(device_id, time_ms)` index, newest first).
    public func vehicles(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [VehicleRecord]
    {
        let (condition, values) = scopeCondition(scope, from: 3) ?? ("1", [])
        let group = hasGroups ? "d.grp" : "NULL"
        return try read("cannot read vehicles") { db in
            let columns = Set(try db.columns(in: "device_state").map(\.name))
            let hasOdometer = people || columns.contains("odometer_m")
            let state = columns.contains("state") ? "s.state" : "NULL"
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT d.name, \(hasOdometer ? "s.silent, s.odometer_m" : "0, 0"), \(state),
                           \(positionColumns), \(group)
                    FROM devices d
                    JOIN positions p ON p.device_id = d.id AND p.time_ms = (
                      SELECT q.time_ms FROM positions q WHERE q.device_id = d.id AND q.disposition = 0
                      ORDER BY q.time_ms DESC LIMIT 1)
                    LEFT JOIN device_state s ON s.device_id = d.id
                    WHERE d.ident > ?1 AND \(condition)
                    ORDER BY d.ident LIMIT ?2
                    """,
                arguments: StatementArguments(
                    [after, limit] as [any DatabaseValueConvertible] + values.map { $0 })
            ).map {
                let p = Self.position($0, at: 4)
                var v = VehicleRecord(
                    device: p.fix.device, name: $0[0], silent: ($0[1] as Bool?) ?? false,
                    odometerM: ($0[2] as Double?) ?? 0, position: p)
                if let blob = $0[3] as Data?,
                    let s = blob.withUnsafeBytes({ DeviceStateCodec.decode($0) })
                {
                    (v.ignition, v.driver) = (s.ignition, s.driver)
                }
                v.group = $0[$0.count - 1]
                return v
            }
        }
    }

    /// Trips overlapping the filter's window, by start time (oldest first).
    /// Empty for a database written before trips existed.
    public func trips(filter: TripFilter = TripFilter(), limit: Int = 1_000_000) throws(StoreError)
        -> [TripRecord]
    {
        try read("cannot read trips") { db in
            guard try db.tableExists("trips") else { return [] }
            // A database not yet migrated to v10 (read by a newer fleetctl) has no fence ids.
            let columns = Set(try db.columns(in: "trips").map(\.name))
            let ids =
                columns.contains("start_fence_id")
                ? "t.start_fence_id, t.end_fence_id" : "NULL, NULL"
            // Nor, before v11, the detour of late fixes.
            let detour = columns.contains("late_detour_m") ? "t.late_detour_m" : "0.0"
            // Nor, before v13, drivers.
            let driver = columns.contains("driver") ? "t.driver" : "NULL"
            let (scoped, values) =
                scopeCondition(filter.scope, from: 7, drivenBy: "trips") ?? ("1", [])
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT t.id, d.ident, d.name, t.start_ms, t.end_ms, t.start_lat, t.start_lon,
                           t.end_lat, t.end_lon, t.start_fence, t.end_fence,
                           t.distance_m + \(detour), t.max_speed_kmh, t.fixes, t.start_odometer_m,
                           t.end_odometer_m, \(ids), \(detour), \(driver)
                    FROM trips t JOIN devices d ON d.id = t.device_id
                    WHERE (?1 IS NULL OR d.ident = ?1) AND (?2 IS NULL OR t.end_ms >= ?2)
                      AND (?3 IS NULL OR t.start_ms < ?3)
                      AND (?5 IS NULL OR (t.start_ms, t.id) > (?5, ?6)) AND \(scoped)
                    ORDER BY t.start_ms, t.id LIMIT ?4
                    """,
                arguments: StatementArguments(
                    [
                        filter.device, filter.fromMs, filter.toMs, limit, filter.afterStartMs,
                        filter.afterId ?? 0,
                    ] as [(any DatabaseValueConvertible)?] + values.map { $0 })
            ).map {
                TripRecord(
                    id: $0[0], device: $0[1], vehicle: $0[2], startTime: $0[3], endTime: $0[4],
                    startLat: $0[5], startLon: $0[6], endLat: $0[7], endLon: $0[8],
                    startFence: $0[9], endFence: $0[10], distanceM: $0[11], maxSpeedKmh: $0[12],
                    fixes: $0[13], startOdometerM: $0[14], endOdometerM: $0[15],
                    startFenceId: $0[16], endFenceId: $0[17], lateDetourM: $0[18], driver: $0[19])
            }
        }
    }

    /// Each device's tracking state as last checkpointed (only `device`'s
    /// when given); empty for a database written before states were kept
    /// whole (schema v7).
    public func deviceStates(device: String?) throws(StoreError) -> [String: DeviceState] {
        try read("cannot read device state") { db in
            guard try db.tableExists("device_state"),
                try db.columns(in: "device_state").contains(where: { $0.name == "state" })
            else { return [:] }
            return try DeviceStateRows.read(db, device: device)
        }
    }

    /// Row counts for summaries: positions and alerts stored.
    public func counts() throws(StoreError) -> (positions: Int, alerts: Int, devices: Int) {
        try read("cannot count rows") { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM positions") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM alerts") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM devices") ?? 0
            )
        }
    }

    /// Every device, registered or only seen, by ident.
    public func devices() throws(StoreError) -> [DeviceRecord] {
        try devices(where: "", [], limit: nil)
    }

    /// Devices of `scope` whose ident sorts after `after`, by ident, at most `limit`.
    public func devices(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [DeviceRecord]
    {
        let (condition, values) = scopeCondition(scope, from: 2) ?? ("1", [])
        return try devices(
            where: "WHERE d.ident > ?1 AND \(condition)", [after] + values, limit: limit)
    }

    /// A device's group (nil: none, or no such device).
    public func deviceGroup(_ ident: String) throws(StoreError) -> String? {
        guard hasGroups else { return nil }
        return try read("cannot read the group of \(ident)") { db in
            try String.fetchOne(
                db, sql: "SELECT grp FROM devices WHERE ident = ?", arguments: [ident])
        }
    }

    /// Each grouped device's group.
    public func deviceGroups() throws(StoreError) -> [String: String] {
        guard hasGroups else { return [:] }
        return try read("cannot read device groups") { db in
            var out: [String: String] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT ident, grp FROM devices WHERE grp IS NOT NULL")
            while let r = try rows.next() { out[r[0]] = r[1] }
            return out
        }
    }

    /// The SQL condition on `d` (the devices table) that keeps `scope`'s
    /// devices, with its arguments numbered from `?from`; nil for `.all`.
    /// A database without groups has no device in any group. `drivenBy`
    /// names the table a query walks in its own order (alerts by id, trips
    /// by start): the group test then takes no index (`+d.grp`, as
    /// https://sqlite.org/optoverview.html#disqualifying_where_clause_terms_using_unary_ says),
    /// else SQLite walks the group's devices and sorts all their rows (a
    /// page of a big group's alerts cost tens of milliseconds that way).
    private func scopeCondition(_ scope: DeviceScope, from: Int, drivenBy: String? = nil)
        -> (String, [String])?
    {
        switch scope {
        case .all: return nil
        case .device(let id): return ("d.ident = ?\(from)", [id])
        case .groups(let groups):
            guard hasGroups else { return ("0", []) }
            let marks = groups.indices.map { "?\(from + $0)" }.joined(separator: ",")
            return ("\(drivenBy == nil ? "" : "+")d.grp IN (\(marks))", groups)
        }
    }

    /// One device, or nil when it was never registered nor seen.
    public func device(_ ident: String) throws(StoreError) -> DeviceRecord? {
        try devices(where: "WHERE d.ident = ?1", [ident], limit: 1).first
    }

    /// The devices `condition` selects, through the ident's index (`?1 IS
    /// NULL OR ident = ?1` would scan them all); their counts and newest fix
    /// are computed only for the rows returned.
    private func devices(where condition: String, _ arguments: [String], limit: Int?)
        throws(StoreError) -> [DeviceRecord]
    {
        try read("cannot read devices") { db in
            // A v8 database has both (no schema look-up per call, as the API reads often).
            let hasRegistry =
                try people || db.columns(in: "devices").contains { $0.name == "registered" }
            let hasOdometer =
                try people
                || db.columns(in: "device_state").contains { $0.name == "odometer_m" }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT d.ident, d.name, d.plate, d.vin, \(hasRegistry ? "d.registered" : "0"),
                      \(hasGroups ? "d.grp" : "NULL"),
                      (SELECT count(*) FROM positions p WHERE p.device_id = d.id),
                      (SELECT max(time_ms) FROM positions p WHERE p.device_id = d.id),
                      \(hasOdometer ? "s.odometer_m" : "NULL"), \(hasOdometer ? "s.silent" : "0")
                    FROM devices d LEFT JOIN device_state s ON s.device_id = d.id
                    \(condition)
                    ORDER BY d.ident \(limit.map { "LIMIT \($0)" } ?? "")
                    """, arguments: StatementArguments(arguments)
            ).map {
                DeviceRecord(
                    ident: $0[0], name: $0[1], plate: $0[2], vin: $0[3], registered: $0[4],
                    positions: $0[6], lastFix: $0[7], odometerM: $0[8] ?? 0, silent: $0[9] ?? false,
                    group: $0[5])
            }
        }
    }

    /// Registered names by ident.
    public func deviceNames() throws(StoreError) -> [String: String] {
        try read("cannot read the registry") { db in
            var out: [String: String] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT ident, name FROM devices WHERE name IS NOT NULL")
            {
                out[row[0]] = row[1]
            }
            return out
        }
    }

    /// Idents of the registered devices (`fleetctl devices add`).
    public func registeredDevices() throws(StoreError) -> Set<String> {
        try read("cannot read the registry") { db in
            guard try db.columns(in: "devices").contains(where: { $0.name == "registered" }) else {
                return []
            }
            return Set(
                try String.fetchAll(db, sql: "SELECT ident FROM devices WHERE registered = 1"))
        }
    }

    public func mails(statuses: [MailRecord.Status], limit: Int) throws(StoreError)
        -> [MailRecord]
    {
        try read("cannot read the mail outbox") { db in
            try MailSQL.list(statuses: statuses, limit: limit, db)
        }
    }

    public func mailRules() throws(StoreError) -> [MailRule] {
        guard hasMailRules else { return [] }
        return try read("cannot read the notification rules") { db in try MailRuleSQL.all(db) }
    }

    public func shares(device: String) throws(StoreError) -> [ShareRecord] {
        guard hasShares else { return [] }
        return try read("cannot read the links of \(device)") { db in
            try ShareSQL.byDevice(device, db)
        }
    }

    public func share(tokenHash: String) throws(StoreError) -> ShareRecord? {
        guard hasShares else { return nil }
        return try read("cannot read a link") { db in try ShareSQL.byToken(tokenHash, db) }
    }

    public func deviceIdents() throws(StoreError) -> Set<String> {
        try read("cannot read the device ids") { db in
            Set(try String.fetchAll(db, sql: "SELECT ident FROM devices"))
        }
    }

    public func commands(device: String?, statuses: [CommandStatus], limit: Int)
        throws(StoreError) -> [CommandRecord]
    {
        try read("cannot read commands") { db in
            try CommandSQL.select(device: device, statuses: statuses, limit: limit, db)
        }
    }

    /// Alerts stored per type, by type name.
    public func alertCountsByType() throws(StoreError) -> [(type: String, count: Int)] {
        try read("cannot count alerts") { db in
            try Row.fetchAll(
                db, sql: "SELECT type, count(*) FROM alerts GROUP BY type ORDER BY type"
            ).map {
                (type: $0[0], count: $0[1])
            }
        }
    }

    /// The highest alert id stored (0 when none).
    public func lastAlertId() throws(StoreError) -> Int64 {
        try read("cannot read alerts") { db in
            try Int64.fetchOne(db, sql: "SELECT max(id) FROM alerts") ?? 0
        }
    }

    /// A user by name, with its password hash, or nil.
    public func user(named name: String) throws(StoreError) -> UserRecord? {
        guard people else { return nil }
        return try read("cannot read users") { db in
            try Row.fetchOne(
                db, sql: "SELECT \(userColumns) FROM users WHERE name = ?", arguments: [name]
            ).flatMap(Self.user)
        }
    }

    /// Every user, by name.
    public func users() throws(StoreError) -> [UserRecord] {
        guard people else { return [] }
        return try read("cannot read users") { db in
            try Row.fetchAll(
                db, sql: "SELECT \(userColumns) FROM users ORDER BY name"
            ).compactMap(Self.user)
        }
    }

    private var userColumns: String {
        "name, role, password_hash, created_ms, " + (hasGroups ? "groups, device" : "'', NULL")
            + (hasMailRules ? ", email, driver_key" : ", NULL, NULL")
    }

    private static func user(_ r: Row) -> UserRecord? {
        guard let role = Role(rawValue: r[1]) else { return nil }
        let groups = (r[4] as String).split(separator: ",").map(String.init)
        return UserRecord(
            name: r[0], role: role, passwordHash: r[2], createdMs: r[3], groups: groups,
            device: r[5], email: r[6], key: r[7])
    }

    /// The token whose secret hashes to `secretHash`, or nil.
    public func token(secretHash: String) throws(StoreError) -> TokenRecord? {
        guard people else { return nil }
        return try read("cannot read tokens") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT name, role, secret_hash, created_ms, last_used_ms FROM tokens
                    WHERE secret_hash = ?
                    """, arguments: [secretHash]
            ).flatMap(Self.token)
        }
    }

    /// Every token, by name.
    public func tokens() throws(StoreError) -> [TokenRecord] {
        guard people else { return [] }
        return try read("cannot read tokens") { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT name, role, secret_hash, created_ms, last_used_ms FROM tokens ORDER BY name"
            ).compactMap(Self.token)
        }
    }

    private static func token(_ r: Row) -> TokenRecord? {
        guard let role = Role(rawValue: r[1]) else { return nil }
        return TokenRecord(
            name: r[0], role: role, secretHash: r[2], createdMs: r[3], lastUsedMs: r[4])
    }

    /// Audit entries with id greater than `afterId`, oldest first.
    public func audit(afterId: Int64 = 0, limit: Int = 1_000_000) throws(StoreError)
        -> [AuditRecord]
    {
        guard people else { return [] }
        return try read("cannot read the audit log") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, time_ms, actor, action, target, detail FROM audit
                    WHERE id > ? ORDER BY id LIMIT ?
                    """, arguments: [afterId, limit]
            ).map {
                AuditRecord(
                    id: $0[0], timeMs: $0[1], actor: $0[2], action: $0[3], target: $0[4],
                    detail: $0[5])
            }
        }
    }

    func read<T>(_ action: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try queue.read(body)
        } catch {
            throw StoreError(path: path, action: action, underlying: error)
        }
    }
}

struct ReaderProblem: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
