import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import PostgresNIO

/// A reading connection for the API and `fleetctl`: the same answers as
/// `SQLiteReader`. Each call is one statement or a few; PostgreSQL's MVCC
/// keeps reads from blocking the writers
/// (https://www.postgresql.org/docs/15/mvcc-intro.html).
public final class PostgresReader: Sendable {
    let link: PGLink

    /// A reader of the database `settings` names. Connects on first use;
    /// `check` connects now and fails with `StoreError` when the database
    /// cannot be reached or holds no fleetd schema.
    public init(settings: PostgresSettings, check: Bool = false) throws(StoreError) {
        link = PGLink(settings, name: "fleetd reader")
        if check {
            try link.session("cannot open the database") { s in
                let ok: Bool =
                    try s.query("SELECT to_regclass('public.alerts') IS NOT NULL").first.map {
                        try $0[0]
                    } ?? false
                guard ok else { throw ReaderProblem("not a fleetd database (no alerts table)") }
            }
        }
    }

    /// The server's `version()`, asked on a new connection.
    public func serverVersion() throws(StoreError) -> String {
        try read("cannot connect") { s in try s.query("SELECT version()")[0][0] }
    }

    func read<T>(_ action: String, _ body: (PGSession) throws -> T) throws(StoreError) -> T {
        try link.session(action, body)
    }

    /// Alerts with id greater than `afterId` and less than `beforeId`,
    /// newest first if `newestFirst`, at most `limit`.
    public func alerts(
        afterId: Int64, beforeId: Int64, newestFirst: Bool, limit: Int, filter: AlertFilter
    ) throws(StoreError) -> [AlertRecord] {
        var conditions = ["a.id > $1", "a.id < $2"]
        var b = PostgresBindingsBuilder()
        _ = b.add(afterId)
        _ = b.add(beforeId)
        if let device = filter.device {
            conditions.append(
                "a.device_id = (SELECT id FROM devices WHERE ident = \(b.add(device)))")
        }
        if let range = filter.devices {
            conditions.append(
                "a.device_id IN (SELECT id FROM devices WHERE ident COLLATE \"C\" BETWEEN \(b.add(range.lowerBound)) AND \(b.add(range.upperBound)))"
            )
        }
        if let type = filter.type { conditions.append("a.type = \(b.add(type))") }
        if let since = filter.sinceMs { conditions.append("a.time_ms >= \(b.add(since))") }
        if let fence = filter.fence { conditions.append("a.fence = \(b.add(fence))") }
        if let until = filter.untilMs { conditions.append("a.time_ms < \(b.add(until))") }
        if let scoped = Self.scopeCondition(filter.scope, &b, walked: true) {
            conditions.append(scoped)
        }
        let sql = """
            SELECT \(Self.alertColumns)
            FROM alerts a JOIN devices d ON d.id = a.device_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY a.id\(newestFirst ? " DESC" : "") LIMIT \(b.add(Int64(limit)))
            """
        return try read("cannot read alerts") { s in try s.query(sql, b.bindings).map(Self.alert) }
    }

    /// One alert, or nil.
    public func alert(id: Int64) throws(StoreError) -> AlertRecord? {
        try read("cannot read alert \(id)") { s in
            try s.query(
                """
                SELECT \(Self.alertColumns) FROM alerts a JOIN devices d ON d.id = a.device_id
                WHERE a.id = $1
                """, .of(id)
            ).first.map(Self.alert)
        }
    }

    static let alertColumns =
        "a.id, a.time_ms, d.ident, a.type, a.fence, a.lat, a.lon, a.details, a.acked_by, a.acked_ms"

    static func alert(_ r: PGRow) throws -> AlertRecord {
        AlertRecord(
            id: try r[0], time: try r[1], device: try r[2], type: try r[3], fence: try r[4],
            lat: try r[5], lon: try r[6], details: try r[7], ackedBy: try r[8], ackedMs: try r[9])
    }

    /// A device's stored positions in time order, `fromMs <= time < toMs`.
    public func positions(
        device: String, fromMs: Int64? = nil, toMs: Int64? = nil, limit: Int = 1_000_000
    ) throws(StoreError) -> [PositionRecord] {
        try read("cannot read positions") { s in
            try s.query(
                """
                SELECT \(Self.positionColumns)
                FROM positions p JOIN devices d ON d.id = p.device_id
                WHERE d.ident = $1 AND ($2::bigint IS NULL OR p.time_ms >= $2)
                  AND ($3::bigint IS NULL OR p.time_ms < $3)
                ORDER BY p.time_ms LIMIT $4
                """, .of(device, fromMs, toMs, limit)
            ).map { try Self.position($0, at: 0) }
        }
    }

    /// The 25 columns `position(_:at:)` reads (`p` positions, `d` devices).
    static let positionColumns = """
        d.ident, p.time_ms, p.lat, p.lon, p.speed_kmh, p.course, p.alt_m, p.accuracy_m,
        p.sats, p.ignition, p.valid, p.disposition, p.priority, p.movement, p.gsm_signal,
        p.ext_voltage_mv, p.odometer_m, p.gnss_status, p.fix_quality, p.hdop, p.io, p.io_codec,
        p.battery, p.charging, p.attributes
        """

    /// A position from the `positionColumns` of `r` that start at column `o`.
    static func position(_ r: PGRow, at o: Int) throws -> PositionRecord {
        func int(_ i: Int) throws -> Int? { (try r[o + i] as Int64?).map { Int($0) } }
        var extra = FixExtra()
        extra.priority = try int(12)
        extra.movement = try r[o + 13]
        extra.gsmSignal = try int(14)
        extra.externalVoltageMv = try int(15)
        extra.odometerM = try int(16)
        extra.gnssStatus = try int(17)
        extra.fixQuality = try int(18)
        extra.hdop = try r[o + 19]
        extra.ioRaw = (try r[o + 20] as ByteBuffer?).map { Array($0.readableBytesView) }
        extra.ioCodec = UInt8(truncatingIfNeeded: try int(21) ?? 0)
        extra.batteryPercent = try r[o + 22]
        extra.charging = try r[o + 23]
        extra.attributes = try r[o + 24]
        let fix = Fix(
            device: try r[o], time: try r[o + 1], lat: try r[o + 2], lon: try r[o + 3],
            speedKmh: try r[o + 4], course: try r[o + 5], altM: try r[o + 6],
            accuracyM: try r[o + 7], sats: try int(8), ignition: try r[o + 9],
            valid: try r[o + 10], extra: extra == FixExtra() ? nil : extra)
        return PositionRecord(fix: fix, disposition: try int(11) ?? 0)
    }

    /// Per device, its accepted positions in `[fromMs, toMs)`.
    public func positionSpans(device: String?, fromMs: Int64, toMs: Int64) throws(StoreError)
        -> [PositionSpan]
    {
        try read("cannot read positions") { s in
            try s.query(
                """
                SELECT d.ident, min(p.time_ms), max(p.time_ms), count(*), max(p.speed_kmh)
                FROM devices d JOIN positions p ON p.device_id = d.id
                WHERE p.time_ms >= $1 AND p.time_ms < $2 AND p.disposition = 0
                  AND ($3::text IS NULL OR d.ident = $3)
                GROUP BY d.id, d.ident ORDER BY d.ident
                """, .of(fromMs, toMs, device)
            ).map {
                PositionSpan(
                    device: try $0[0], firstMs: try $0[1], lastMs: try $0[2],
                    count: Int(try $0[3] as Int64), maxSpeedKmh: try $0[4])
            }
        }
    }

    /// The fences each device was inside by its newest enter/exit alert per
    /// fence before `beforeMs`.
    public func fencesInside(device: String?, beforeMs: Int64?) throws(StoreError) -> [String:
        [String]]
    {
        try read("cannot read alerts") { s in
            var out: [String: [String]] = [:]
            for r in try s.query(
                """
                SELECT d.ident, a.fence FROM alerts a JOIN devices d ON d.id = a.device_id
                WHERE a.type = 'geofence_enter' AND a.id IN (
                  SELECT max(id) FROM alerts
                  WHERE type IN ('geofence_enter', 'geofence_exit') AND fence IS NOT NULL
                    AND ($1::text IS NULL OR device_id = (SELECT id FROM devices WHERE ident = $1))
                    AND ($2::bigint IS NULL OR time_ms < $2)
                  GROUP BY device_id, fence)
                ORDER BY d.ident, a.fence
                """, .of(device, beforeMs))
            {
                out[try r[0], default: []].append(try r[1])
            }
            return out
        }
    }

    /// Devices after `after` with their newest accepted position.
    public func vehicles(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [VehicleRecord]
    {
        var b = PostgresBindingsBuilder()
        _ = (b.add(after), b.add(limit))
        let scoped = Self.scopeCondition(scope, &b) ?? "true"
        return try read("cannot read vehicles") { s in
            try s.query(
                """
                SELECT d.name, s.silent, s.odometer_m, s.state, \(Self.positionColumns), d.grp
                FROM devices d
                JOIN LATERAL (
                  SELECT * FROM positions q WHERE q.device_id = d.id AND q.disposition = 0
                  ORDER BY q.time_ms DESC LIMIT 1) p ON true
                LEFT JOIN device_state s ON s.device_id = d.id
                WHERE d.ident > $1 AND \(scoped)
                ORDER BY d.ident LIMIT $2
                """, b.bindings
            ).map {
                let p = try Self.position($0, at: 4)
                var v = VehicleRecord(
                    device: p.fix.device, name: try $0[0], silent: (try $0[1] as Bool?) ?? false,
                    odometerM: (try $0[2] as Double?) ?? 0, position: p)
                if let blob = try $0[3] as ByteBuffer?,
                    let s = blob.withUnsafeReadableBytes({ DeviceStateCodec.decode($0) })
                {
                    (v.ignition, v.driver) = (s.ignition, s.driver)
                }
                v.group = try $0[$0.cells.count - 1]
                return v
            }
        }
    }

    /// Trips overlapping the filter's window, by start time (oldest first).
    public func trips(filter: TripFilter = TripFilter(), limit: Int = 1_000_000) throws(StoreError)
        -> [TripRecord]
    {
        var b = PostgresBindingsBuilder()
        _ = (b.add(filter.device), b.add(filter.fromMs), b.add(filter.toMs), b.add(limit))
        _ = (b.add(filter.afterStartMs), b.add(filter.afterId ?? 0))
        let scoped = Self.scopeCondition(filter.scope, &b, walked: true) ?? "true"
        return try read("cannot read trips") { s in
            try s.query(
                """
                SELECT t.id, d.ident, d.name, t.start_ms, t.end_ms, t.start_lat, t.start_lon,
                       t.end_lat, t.end_lon, t.start_fence, t.end_fence,
                       t.distance_m + t.late_detour_m, t.max_speed_kmh, t.fixes,
                       t.start_odometer_m, t.end_odometer_m, t.start_fence_id, t.end_fence_id,
                       t.late_detour_m, t.driver
                FROM trips t JOIN devices d ON d.id = t.device_id
                WHERE ($1::text IS NULL OR d.ident = $1) AND ($2::bigint IS NULL OR t.end_ms >= $2)
                  AND ($3::bigint IS NULL OR t.start_ms < $3)
                  AND ($5::bigint IS NULL OR (t.start_ms, t.id) > ($5, $6)) AND \(scoped)
                ORDER BY t.start_ms, t.id LIMIT $4
                """, b.bindings
            ).map {
                TripRecord(
                    id: try $0[0], device: try $0[1], vehicle: try $0[2], startTime: try $0[3],
                    endTime: try $0[4], startLat: try $0[5], startLon: try $0[6],
                    endLat: try $0[7], endLon: try $0[8], startFence: try $0[9],
                    endFence: try $0[10], distanceM: try $0[11], maxSpeedKmh: try $0[12],
                    fixes: Int(try $0[13] as Int64), startOdometerM: try $0[14],
                    endOdometerM: try $0[15], startFenceId: try $0[16], endFenceId: try $0[17],
                    lateDetourM: try $0[18], driver: try $0[19])
            }
        }
    }

    /// Each device's tracking state as last checkpointed (only `device`'s when given).
    public func deviceStates(device: String?) throws(StoreError) -> [String: DeviceState] {
        try read("cannot read device state") { s in try PGStateRows.read(s, device: device) }
    }

    /// Row counts for summaries. Positions are counted exactly (`count(*)`).
    public func counts() throws(StoreError) -> (positions: Int, alerts: Int, devices: Int) {
        try read("cannot count rows") { s in
            let r = try s.query(
                """
                SELECT (SELECT count(*) FROM positions), (SELECT count(*) FROM alerts),
                       (SELECT count(*) FROM devices)
                """)[0]
            return (Int(try r[0] as Int64), Int(try r[1] as Int64), Int(try r[2] as Int64))
        }
    }

    /// Every device, registered or only seen, by ident.
    public func devices() throws(StoreError) -> [DeviceRecord] {
        try devices(where: "", [], limit: nil)
    }

    /// Devices whose ident sorts after `after`, by ident, at most `limit`.
    public func devices(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [DeviceRecord]
    {
        switch scope {
        case .all: return try devices(where: "WHERE d.ident > $1", [after], limit: limit)
        case .device(let id):
            return try devices(
                where: "WHERE d.ident > $1 AND d.ident = $2", [after, id], limit: limit)
        case .groups(let groups):
            var b = PostgresBindingsBuilder()
            _ = (b.add(after), b.add(groups))
            return try devices(where: "WHERE d.ident > $1 AND d.grp = ANY($2)", b, limit: limit)
        }
    }

    /// A device's group (nil: none, or no such device).
    public func deviceGroup(_ ident: String) throws(StoreError) -> String? {
        try read("cannot read the group of \(ident)") { s in
            try s.query("SELECT grp FROM devices WHERE ident = $1", .of(ident)).first.flatMap {
                try $0[0] as String?
            }
        }
    }

    /// Each grouped device's group.
    public func deviceGroups() throws(StoreError) -> [String: String] {
        try read("cannot read device groups") { s in
            var out: [String: String] = [:]
            for r in try s.query("SELECT ident, grp FROM devices WHERE grp IS NOT NULL") {
                out[try r[0]] = try r[1] as String
            }
            return out
        }
    }

    /// The SQL condition on `d` (the devices table) that keeps `scope`'s
    /// devices, its values added to `b`; nil for `.all`. `walked`: the
    /// query walks its own table in order (alerts by id, trips by start),
    /// so the group test is an expression no index serves (as the SQLite
    /// reader's `+d.grp`), not a reason to start from the group's devices.
    static func scopeCondition(
        _ scope: DeviceScope, _ b: inout PostgresBindingsBuilder, walked: Bool = false
    ) -> String? {
        switch scope {
        case .all: nil
        case .device(let id): "d.ident = \(b.add(id))"
        case .groups(let groups):
            "\(walked ? "(d.grp || '')" : "d.grp") = ANY(\(b.add(groups))::text[])"
        }
    }

    /// One device, or nil when it was never registered nor seen.
    public func device(_ ident: String) throws(StoreError) -> DeviceRecord? {
        try devices(where: "WHERE d.ident = $1", [ident], limit: 1).first
    }

    private func devices(where condition: String, _ arguments: [String], limit: Int?)
        throws(StoreError) -> [DeviceRecord]
    {
        var b = PostgresBindingsBuilder()
        for a in arguments { _ = b.add(a) }
        return try devices(where: condition, b, limit: limit)
    }

    private func devices(where condition: String, _ b: PostgresBindingsBuilder, limit: Int?)
        throws(StoreError) -> [DeviceRecord]
    {
        try read("cannot read devices") { s in
            try s.query(
                """
                SELECT d.ident, d.name, d.plate, d.vin, d.registered,
                  (SELECT count(*) FROM positions p WHERE p.device_id = d.id),
                  (SELECT max(time_ms) FROM positions p WHERE p.device_id = d.id),
                  s.odometer_m, s.silent, d.grp
                FROM devices d LEFT JOIN device_state s ON s.device_id = d.id
                \(condition)
                ORDER BY d.ident \(limit.map { "LIMIT \($0)" } ?? "")
                """, b.bindings
            ).map {
                DeviceRecord(
                    ident: try $0[0], name: try $0[1], plate: try $0[2], vin: try $0[3],
                    registered: try $0[4], positions: Int(try $0[5] as Int64),
                    lastFix: try $0[6], odometerM: try $0[7] ?? 0, silent: try $0[8] ?? false,
                    group: try $0[9])
            }
        }
    }

    /// Registered names by ident.
    public func deviceNames() throws(StoreError) -> [String: String] {
        try read("cannot read the registry") { s in
            var out: [String: String] = [:]
            for r in try s.query("SELECT ident, name FROM devices WHERE name IS NOT NULL") {
                out[try r[0]] = try r[1]
            }
            return out
        }
    }

    /// Idents of the registered devices.
    public func registeredDevices() throws(StoreError) -> Set<String> {
        try read("cannot read the registry") { s in
            Set(try s.query("SELECT ident FROM devices WHERE registered").map { try $0[0] })
        }
    }

    public func mails(statuses: [MailRecord.Status], limit: Int) throws(StoreError)
        -> [MailRecord]
    {
        try read("cannot read the mail outbox") { s in
            try PGMailSQL.list(statuses: statuses, limit: limit, s)
        }
    }

    public func mailRules() throws(StoreError) -> [MailRule] {
        try read("cannot read the notification rules") { s in
            try s.query("SELECT name, definition, created_by FROM notification_rules ORDER BY name")
                .compactMap { r in
                    MailRule.stored(name: try r[0], json: try r[1], createdBy: try r[2])
                }
        }
    }

    public func shares(device: String) throws(StoreError) -> [ShareRecord] {
        try read("cannot read the links of \(device)") { s in try PGShareSQL.byDevice(device, s) }
    }

    public func share(tokenHash: String) throws(StoreError) -> ShareRecord? {
        try read("cannot read a link") { s in try PGShareSQL.byToken(tokenHash, s) }
    }

    public func deviceIdents() throws(StoreError) -> Set<String> {
        try read("cannot read the device ids") { s in
            Set(try s.query("SELECT ident FROM devices").map { try $0[0] })
        }
    }

    public func commands(device: String?, statuses: [CommandStatus], limit: Int)
        throws(StoreError) -> [CommandRecord]
    {
        try read("cannot read commands") { s in
            try PGCommandSQL.select(device: device, statuses: statuses, limit: limit, s)
        }
    }

    /// Alerts stored per type, by type name.
    public func alertCountsByType() throws(StoreError) -> [(type: String, count: Int)] {
        try read("cannot count alerts") { s in
            try s.query("SELECT type, count(*) FROM alerts GROUP BY type ORDER BY type").map {
                (type: try $0[0], count: Int(try $0[1] as Int64))
            }
        }
    }

    /// The highest alert id stored (0 when none).
    public func lastAlertId() throws(StoreError) -> Int64 {
        try read("cannot read alerts") { s in
            try s.query("SELECT coalesce(max(id), 0) FROM alerts")[0][0]
        }
    }

    /// A user by name, with its password hash, or nil.
    public func user(named name: String) throws(StoreError) -> UserRecord? {
        try read("cannot read users") { s in
            try s.query(
                "SELECT \(Self.userColumns) FROM users WHERE name = $1",
                .of(name)
            ).first.flatMap(Self.user)
        }
    }

    /// Every user, by name.
    public func users() throws(StoreError) -> [UserRecord] {
        try read("cannot read users") { s in
            try s.query("SELECT \(Self.userColumns) FROM users ORDER BY name")
                .compactMap(Self.user)
        }
    }

    private static let userColumns =
        "name, role, password_hash, created_ms, groups, device, email, driver_key"

    private static func user(_ r: PGRow) throws -> UserRecord? {
        guard let role = Role(rawValue: try r[1]) else { return nil }
        let groups = (try r[4] as String).split(separator: ",").map(String.init)
        return UserRecord(
            name: try r[0], role: role, passwordHash: try r[2], createdMs: try r[3],
            groups: groups, device: try r[5], email: try r[6], key: try r[7])
    }

    /// The token whose secret hashes to `secretHash`, or nil.
    public func token(secretHash: String) throws(StoreError) -> TokenRecord? {
        try read("cannot read tokens") { s in
            try s.query(
                """
                SELECT name, role, secret_hash, created_ms, last_used_ms FROM tokens
                WHERE secret_hash = $1
                """, .of(secretHash)
            ).first.flatMap(Self.token)
        }
    }

    /// Every token, by name.
    public func tokens() throws(StoreError) -> [TokenRecord] {
        try read("cannot read tokens") { s in
            try s.query(
                "SELECT name, role, secret_hash, created_ms, last_used_ms FROM tokens ORDER BY name"
            ).compactMap(Self.token)
        }
    }

    private static func token(_ r: PGRow) throws -> TokenRecord? {
        guard let role = Role(rawValue: try r[1]) else { return nil }
        return TokenRecord(
            name: try r[0], role: role, secretHash: try r[2], createdMs: try r[3],
            lastUsedMs: try r[4])
    }

    /// Audit entries with id greater than `afterId`, oldest first.
    public func audit(afterId: Int64 = 0, limit: Int = 1_000_000) throws(StoreError)
        -> [AuditRecord]
    {
        try read("cannot read the audit log") { s in
            try s.query(
                """
                SELECT id, time_ms, actor, action, target, detail FROM audit
                WHERE id > $1 ORDER BY id LIMIT $2
                """, .of(afterId, limit)
            ).map {
                AuditRecord(
                    id: try $0[0], timeMs: try $0[1], actor: try $0[2], action: try $0[3],
                    target: try $0[4], detail: try $0[5])
            }
        }
    }

    public func webhookAlerts(_ batch: WebhookBatch) throws(StoreError) -> [AlertRecord] {
        try read("cannot read webhook \(batch.webhook)'s alerts") { s in
            try PGWebhookSQL.alerts(batch, s)
        }
    }

    public func webhookStatuses() throws(StoreError) -> [WebhookStatus] {
        try read("cannot read webhooks") { s in try PGWebhookSQL.statuses(s) }
    }
}

extension PostgresReader: StoreReading {}

/// Parameters added one at a time, each returning its `$n`.
struct PostgresBindingsBuilder {
    var bindings = PostgresBindings()
    private var count = 0

    mutating func add(_ v: any PGBindable) -> String {
        v.bind(into: &bindings)
        count += 1
        return "$\(count)"
    }
}

struct ReaderProblem: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
