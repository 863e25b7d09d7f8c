import FleetGeo
import FleetProtocols
import FleetTracking

/// The devices one core tracks: their states and a tracker of its own.
///
/// A device always hashes to the same shard, so its fixes are processed in
/// arrival order by one thread, and no lock guards its state: the engine
/// hands each shard its part of a batch and waits for all of them (one
/// thread hop per batch, not per fix).
final class TrackingShard: @unchecked Sendable {
    var tracker: Tracker
    var states: [String: DeviceState] = [:]

    init(tracker: Tracker) { self.tracker = tracker }

    /// Processes the fixes at `indices` of `fixes`, in order, writing each
    /// outcome at its index of `outcomes` (a slot no other shard writes).
    func process(
        _ fixes: UnsafeBufferPointer<Fix>, indices: [Int],
        into outcomes: UnsafeMutableBufferPointer<Tracker.Outcome?>
    ) {
        for i in indices {
            // One hash of the device id per fix; the state is updated in place.
            outcomes[i] = tracker.process(fixes[i], state: &states[fixes[i].device])
        }
    }
}
