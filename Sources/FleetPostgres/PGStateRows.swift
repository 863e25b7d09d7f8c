import FleetTracking
import PostgresNIO

/// The `device_state` table read back into `DeviceState`s: the writer's
/// start-up (`PostgresStore.loadStates`) and readers (`deviceStates`) share it.
enum PGStateRows {
    /// Each device's state (only `device`'s when given), by device ident. A
    /// binary state that cannot be read restarts the device's tracking at
    /// its stored position.
    static func read(_ s: PGSession, device: String?) throws -> [String: DeviceState] {
        try states(
            s.query(
                """
                SELECT d.ident, s.last_time_ms, s.lat, s.lon, s.position_time_ms, s.state
                FROM device_state s JOIN devices d ON d.id = s.device_id
                WHERE $1::text IS NULL OR d.ident = $1
                """, .of(device)))
    }

    /// The states of the devices whose row ids are `ids`, by device ident.
    static func read(_ s: PGSession, deviceIds ids: [Int64]) throws -> [String: DeviceState] {
        var b = PostgresBindings()
        b.add(ids)
        return try states(
            s.query(
                """
                SELECT d.ident, s.last_time_ms, s.lat, s.lon, s.position_time_ms, s.state
                FROM device_state s JOIN devices d ON d.id = s.device_id
                WHERE s.device_id = ANY($1)
                """, b))
    }

    private static func states(_ rows: [PGRow]) throws -> [String: DeviceState] {
        var states: [String: DeviceState] = [:]
        for r in rows {
            let last: Int64 = try r[1]
            let blob: ByteBuffer? = try r[5]
            let fallback = DeviceState(
                lastTime: last, lat: try r[2] ?? .nan, lon: try r[3] ?? .nan,
                positionTime: try r[4] ?? last, fences: [])
            states[try r[0]] =
                blob.flatMap { b in b.withUnsafeReadableBytes { DeviceStateCodec.decode($0) } }
                ?? fallback
        }
        return states
    }
}
