import FleetTracking
import Foundation
import GRDB

/// The `device_state` table read back into `DeviceState`s: the writer's
/// start-up (`SQLiteStore.loadStates`) and readers (`deviceStates`) share it.
enum DeviceStateRows {
    /// Each device's state (only `device`'s when given), by device ident. A
    /// binary state (schema v7 on) that cannot be read restarts the device's
    /// tracking at its stored position; older rows are read from their text form.
    static func read(_ db: Database, device: String?) throws -> [String: DeviceState] {
        var states: [String: DeviceState] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT d.ident, s.last_time_ms, s.lat, s.lon, s.fences, s.position_time_ms,
                       s.odometer_m, s.silent, s.tracking, s.state
                FROM device_state s JOIN devices d ON d.id = s.device_id
                WHERE ?1 IS NULL OR d.ident = ?1
                """, arguments: [device])
        while let row = try rows.next() {
            let last: Int64 = row[1]
            let blob: Data? = row[9]
            if let blob {
                states[row[0]] =
                    blob.withUnsafeBytes { DeviceStateCodec.decode($0) }
                    ?? DeviceState(
                        lastTime: last, lat: row[2] ?? .nan, lon: row[3] ?? .nan,
                        positionTime: row[5] ?? last, fences: [])
                continue
            }
            states[row[0]] = DeviceStateText.restore(
                lastTime: last, lat: row[2] ?? .nan, lon: row[3] ?? .nan,
                positionTime: row[5] ?? last, fencesText: row[4], tracking: row[8],
                odometerM: row[6], silent: row[7])
        }
        return states
    }
}
