import FleetStorage
import FleetTracking
import Synchronization

/// Which vehicle each driver's key (Teltonika iButton) was last read by, as
/// of the last commit: what a driver user found by their key sees
/// (`UserRecord.key`).
///
/// A post-commit sink: a fix that carries a key (any fix but a duplicate
/// or a late one, as the tracker reads it) puts the key on its vehicle; an
/// empty key (the driver took it out) takes the vehicle's key off. A key
/// read by two vehicles belongs to the one that read it last. Seeded at
/// start-up from the device states. Keys read by other nodes of a cluster
/// are not seen here.
final class DriverBoard: CommitSink {
    private struct Board {
        /// Key → (vehicle, fix time).
        var byKey: [String: (device: String, time: Int64)] = [:]
        /// Vehicle → its key.
        var byDevice: [String: String] = [:]

        mutating func read(_ key: String, device: String, time: Int64) {
            if let old = byDevice[device], old != key, byKey[old]?.device == device {
                byKey.removeValue(forKey: old)
            }
            if key.isEmpty {
                byDevice.removeValue(forKey: device)
                return
            }
            if let held = byKey[key], held.time > time, held.device != device { return }
            if let held = byKey[key], held.device != device {
                byDevice.removeValue(forKey: held.device)
            }
            byKey[key] = (device, time)
            byDevice[device] = key
        }
    }

    private let board: Mutex<Board>

    init(states: [String: DeviceState]) {
        var b = Board()
        for (device, st) in states {
            if let key = st.driver { b.read(key, device: device, time: st.lastTime) }
        }
        board = Mutex(b)
    }

    func committed(_ commit: Commit) {
        let reads = commit.batch.positions.lazy.filter {
            $0.disposition != .duplicate && $0.disposition != .late && $0.fix.extra?.driver != nil
        }
        guard !reads.isEmpty else { return }
        board.withLock { b in
            for p in reads {
                b.read(p.fix.extra!.driver!, device: p.fix.device, time: p.fix.time)
            }
        }
    }

    /// The vehicle that last read `key`; nil when none holds it now.
    func vehicle(drivenBy key: String) -> String? {
        board.withLock { $0.byKey[key.uppercased()]?.device }
    }
}
