import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import NIOCore
import PostgresNIO
import Synchronization

/// Device leases in the shared database (`device_leases`: one row per
/// device held, with its node, the holding process's `incarnation` and
/// `expires_at` in the database server's clock, so that the nodes' clocks
/// never matter), node heartbeats (`cluster_nodes`) and the other nodes'
/// alerts for the live stream. The tracking thread's own connection.
///
/// A process holds a lease under its node name and a random incarnation
/// drawn at start: a node restarted under the same name does not take its
/// previous life's leases as its own; they expire, and it takes the devices
/// as any node would (with their stored state, which the dead process's
/// last commits left right).
public final class PostgresCluster: ClusterMembership {
    public let node: String
    public let leaseMs: Int64
    /// This process's identity among its node's lives.
    public let incarnation: String
    let link: PGLink
    private let startedMs = WallClock.system.nowMs()
    /// Wall-clock time of the last successful renewal, Unix ms (0: none yet).
    private let renewedMs = Atomic<Int64>(0)

    init(settings: PostgresSettings, node: String, leaseMs: Int64) {
        self.node = node
        self.leaseMs = leaseMs
        self.incarnation = UUID().uuidString.lowercased()
        link = PGLink(settings, name: "fleetd cluster \(node)")
    }

    private var lease: String { "now() + \(leaseMs) * interval '1 millisecond'" }

    public func acquire(_ devices: [String]) throws(StoreError) -> [String: ClusterResume] {
        guard !devices.isEmpty else { return [:] }
        return try link.transaction("cannot take device leases") { s in
            try s.run(
                """
                INSERT INTO devices (ident, created_ms) SELECT unnest($1::text[]), $2
                ON CONFLICT (ident) DO NOTHING
                """, .of(devices, WallClock.system.nowMs()))
            var ids: [Int64: String] = [:]
            for r in try s.query(
                "SELECT id, ident FROM devices WHERE ident = ANY($1)", .of(devices))
            {
                ids[try r[0]] = try r[1]
            }
            var b = PostgresBindings()
            b.add(Array(ids.keys))
            b.add(node)
            b.add(incarnation)
            let taken = try s.query(
                """
                INSERT INTO device_leases (device_id, node, incarnation, expires_at)
                SELECT unnest($1::bigint[]), $2, $3, \(lease)
                ON CONFLICT (device_id) DO UPDATE SET node = excluded.node,
                  incarnation = excluded.incarnation, expires_at = excluded.expires_at,
                  wanted_by = NULL, wanted_at = NULL
                WHERE device_leases.expires_at < now()
                   OR (device_leases.node = excluded.node AND device_leases.incarnation = excluded.incarnation
                       AND device_leases.wanted_by IS NULL)
                RETURNING device_id
                """, b
            ).map { r -> Int64 in try r[0] }
            let takenSet = Set(taken)
            let refused = ids.keys.filter { !takenSet.contains($0) }
            if !refused.isEmpty {
                var w = PostgresBindings()
                w.add(Array(refused))
                w.add(node)
                try s.run(
                    """
                    UPDATE device_leases SET wanted_by = $2, wanted_at = now()
                    WHERE device_id = ANY($1) AND node != $2
                    """, w)
            }
            guard !taken.isEmpty else { return [:] }
            // What each device taken resumes from: its state, then the fixes after it.
            let states = try PGStateRows.read(s, deviceIds: taken)
            var out: [String: ClusterResume] = [:]
            let futures = taken.map { id in
                s.send(
                    """
                    SELECT time_ms, lat, lon, speed_kmh, ignition, valid, accuracy_m, hdop FROM positions
                    WHERE device_id = $1 AND time_ms > $2 AND disposition != \(FixDisposition.late.rawValue)
                    ORDER BY time_ms
                    """, .of(id, states[ids[id] ?? ""]?.lastTime ?? .min))
            }
            for (id, future) in zip(taken, futures) {
                let ident = ids[id] ?? ""
                var fixes: [Fix] = []
                for row in try s.wait(future).rows {
                    let r = PGRow(row)
                    fixes.append(try PGRow.replayFix(ident, r))
                }
                out[ident] = ClusterResume(state: states[ident], fixes: fixes)
            }
            return out
        }
    }

    public func renew(devices: Int, fixesPerSecond: Double) throws(StoreError) -> (
        wanted: [String], held: Set<String>?
    ) {
        let now = WallClock.system.nowMs()
        // Past most of a lease since the last renewal, some may have expired
        // and been taken: the devices still held are listed.
        let last = renewedMs.load(ordering: .relaxed)
        let check = last == 0 || now - last >= leaseMs * 3 / 4
        let result = try link.session("cannot renew device leases") {
            s -> (wanted: [String], held: Set<String>?) in
            try s.run(
                "UPDATE device_leases SET expires_at = \(lease) WHERE node = $1 AND incarnation = $2",
                .of(node, incarnation))
            try s.run(
                """
                INSERT INTO cluster_nodes (node, incarnation, started_ms, heartbeat_ms, devices, fixes_per_s)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (node) DO UPDATE SET incarnation = excluded.incarnation,
                  started_ms = excluded.started_ms, heartbeat_ms = excluded.heartbeat_ms,
                  devices = excluded.devices, fixes_per_s = excluded.fixes_per_s
                """, .of(node, incarnation, startedMs, now, devices, fixesPerSecond))
            let wanted = try s.query(
                """
                SELECT d.ident FROM device_leases l JOIN devices d ON d.id = l.device_id
                WHERE l.node = $1 AND l.incarnation = $2 AND l.wanted_by IS NOT NULL
                  AND l.wanted_at > now() - \(leaseMs) * interval '1 millisecond'
                """, .of(node, incarnation)
            ).map { r -> String in try r[0] }
            guard check else { return (wanted, nil) }
            let held = Set(
                try s.query(
                    """
                    SELECT d.ident FROM device_leases l JOIN devices d ON d.id = l.device_id
                    WHERE l.node = $1 AND l.incarnation = $2
                    """, .of(node, incarnation)
                ).map { r -> String in try r[0] })
            return (wanted, held)
        }
        renewedMs.store(now, ordering: .relaxed)
        return result
    }

    public func othersAlerts(afterId: Int64, limit: Int) throws(StoreError) -> [AlertRecord] {
        try link.session("cannot read the other nodes' alerts") { s in
            try s.query(
                """
                SELECT \(PostgresReader.alertColumns)
                FROM alerts a JOIN devices d ON d.id = a.device_id
                WHERE a.id > $1 AND a.node IS DISTINCT FROM $2
                ORDER BY a.id LIMIT $3
                """, .of(afterId, node, limit)
            ).map(PostgresReader.alert)
        }
    }

    public func leave() throws(StoreError) {
        try link.session("cannot give up device leases") { s in
            try s.run(
                "DELETE FROM device_leases WHERE node = $1 AND incarnation = $2",
                .of(node, incarnation))
        }
    }
}
