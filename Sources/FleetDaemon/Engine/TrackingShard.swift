import FleetGeo
import FleetModel
import FleetStorage
import FleetTracking

/// The devices one core tracks: their entries and a tracker of its own.
///
/// A device always hashes to the same shard, so its fixes are processed in
/// arrival order by one thread, and no lock guards its state: the engine
/// hands each shard its part of a batch and waits for all of them (one
/// thread hop per batch, not per fix).
final class TrackingShard: @unchecked Sendable {
    /// Replaced through `use(_:)` only (its fences make `audience`; a
    /// `didSet` here would run on every fix, the tracker passed `inout`).
    private(set) var tracker: Tracker
    /// Who the fences' alerts are for (fences limited to groups).
    private(set) var audience: FenceAudience
    /// The devices' groups, for the alerts of fences limited to groups.
    let groups: DeviceGroups
    var devices: [String: TrackedDevice] = [:]
    /// Scratch for the batched classification, reused from batch to batch.
    private var points: [Coordinate] = []
    private var found: [Int32] = []
    private var foundEnd: [Int] = []

    /// Tracks with `fresh` from the next fix on (new fences).
    func use(_ fresh: Tracker) {
        tracker = fresh
        audience = FenceAudience(fresh.fences.fences)
    }

    init(tracker: Tracker, groups: DeviceGroups = DeviceGroups()) {
        self.tracker = tracker
        self.groups = groups
        audience = FenceAudience(tracker.fences.fences)
    }

    /// What tracking one fix gave the engine.
    struct Result {
        var outcome: Tracker.Outcome
        /// The device's state became dirty with this fix (it was clean).
        var newlyDirty = false
        /// Where the device's trip stands after the fix, when it is on one
        /// or has just left one.
        var trip: TripNews = .unchanged
    }

    /// A fix's news for the list of trips under way.
    enum TripNews {
        case unchanged
        /// On a trip (the start's fences looked up only when it opened).
        case underWay(OpenTrip)
        /// The trip ended (or the device stopped driving).
        case ended
    }

    /// Processes the fixes at `indices` of `fixes`, in order, writing each
    /// result at its index of `results` (a slot no other shard writes).
    /// The valid fixes' positions are classified first, in one batch
    /// (`FenceIndex.forEachContaining`). A fix whose state changed carries a
    /// copy of the state in its outcome when its time is before `stateBefore`
    /// (the engine writes that state with the fix); otherwise the device is
    /// marked dirty.
    func process(
        _ fixes: UnsafeBufferPointer<Fix>, received: UnsafeBufferPointer<Int64>, indices: [Int],
        stateBefore: Int64, into results: UnsafeMutableBufferPointer<Result?>
    ) {
        points.removeAll(keepingCapacity: true)
        for i in indices where fixes[i].valid {
            points.append(Coordinate(lat: fixes[i].lat, lon: fixes[i].lon))
        }
        found.removeAll(keepingCapacity: true)
        foundEnd.removeAll(keepingCapacity: true)
        points.withUnsafeBufferPointer { buf in
            tracker.fences.forEachContaining(buf) { _, hits in
                found.append(contentsOf: hits)
                foundEnd.append(found.count)
            }
        }
        var k = 0  // into `foundEnd`, one per valid fix
        found.withUnsafeBufferPointer { all in
            for i in indices {
                let fix = fixes[i]
                var containing: UnsafeBufferPointer<Int32>?
                if fix.valid {
                    let start = k == 0 ? 0 : foundEnd[k - 1]
                    containing = UnsafeBufferPointer(rebasing: all[start..<foundEnd[k]])
                    k += 1
                }
                // One hash of the device id; the entry is updated in place.
                results[i] = Self.track(
                    fix, received: received[i], containing, stateBefore, &tracker,
                    &devices[fix.device, default: TrackedDevice()])
                // A fence limited to groups alerts for its groups' vehicles only.
                if !audience.isEmpty, results[i]?.outcome.alerts.isEmpty == false {
                    let group = groups.group(of: fix.device)
                    results[i]!.outcome.alerts.removeAll { !audience.admits($0, group: group) }
                }
            }
        }
    }

    private static func track(
        _ fix: Fix, received: Int64, _ containing: UnsafeBufferPointer<Int32>?,
        _ stateBefore: Int64, _ tracker: inout Tracker, _ entry: inout TrackedDevice
    ) -> Result {
        entry.heardMs = received
        // The state is moved out of its box for the call, and back.
        var (state, rewind) = entry.takeStateAndRewind()
        let wasDriving = state?.trip?.isDriving ?? false
        var result = Result(
            outcome: tracker.process(fix, state: &state, rewind: &rewind, containing: containing))
        var open: OpenTrip?
        if result.outcome.changesState, state?.lastTime != nil {  // not `state != nil`: a copy
            // Its start's fences are listed when the trip board is read.
            open = tracker.openTrip(
                device: fix.device, trip: state?.trip, last: state?.lastWaypoint, fences: false)
        }
        entry.restore(state: state, rewind: rewind)
        // A fix received long after its time comes from the device's
        // backlog: its alerts keep their true times and say so.
        if !result.outcome.alerts.isEmpty, tracker.settings.backlogAfterS > 0,
            Double(received - fix.time) > tracker.settings.backlogAfterS * 1000
        {
            for k in result.outcome.alerts.indices { result.outcome.alerts[k].backlog = true }
        }
        if result.outcome.changesState {
            if let open {
                result.trip = .underWay(open)
            } else if wasDriving {
                result.trip = .ended
            }
            if fix.time < stateBefore {
                result.outcome.state = entry.state
            } else if !entry.dirty {
                entry.dirty = true
                result.newlyDirty = true
            }
        }
        return result
    }
}
