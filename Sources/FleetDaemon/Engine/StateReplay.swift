import FleetGeo
import FleetStorage
import FleetTracking

/// Start-up recovery of tracking state after a crash.
///
/// Device state is checkpointed (`storage.state_checkpoint_s`), so after a
/// crash a device's stored state may be older than its stored fixes. The
/// tracker is deterministic, so running those fixes through it again, in the
/// order they were first processed, gives back exactly the state the crashed
/// process had; the alerts and trips they raise were committed with them the
/// first time and are dropped. (Fences or tracking settings changed between
/// the two runs apply to the replay too.)
enum StateReplay {
    /// Replays into `states` the fixes stored after each device's checkpoint.
    /// Returns the devices replayed (their state is not yet written) and the
    /// number of fixes. Throws `StoreError`.
    static func run(
        store: any Store, fences: FenceIndex, settings: TrackerSettings,
        states: inout [String: DeviceState]
    ) throws -> (devices: [String], fixes: Int) {
        var tracker = Tracker(fences: fences, settings: settings)
        var devices: [String] = []
        var count = 0
        var replayed: [String: DeviceState] = [:]
        try store.forEachFixAfterCheckpoint(states) { device, fixes in
            var state = states[device]
            for fix in fixes {
                let outcome = tracker.process(fix, state: state)
                if let s = outcome.newState { state = s }
            }
            if let state { replayed[device] = state }
            devices.append(device)
            count += fixes.count
        }
        states.merge(replayed) { _, new in new }
        return (devices, count)
    }
}
