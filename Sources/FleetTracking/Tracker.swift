import FleetGeo
import FleetProtocols

/// Per-device tracking: fixes in, alerts and new state out.
///
/// Pure and deterministic: time comes from the fixes, never from a clock, so
/// the same fixes in the same order give the same alerts and state.
public struct Tracker: Sendable {
    public let fences: FenceIndex
    private var scratch: [Int32] = []

    public init(fences: FenceIndex) { self.fences = fences }

    /// What processing one fix produced.
    public struct Outcome: Sendable, Equatable {
        public var disposition: FixDisposition
        public var alerts: [Alert]
        /// The device's state after the fix (unchanged for duplicates and late fixes).
        public var state: DeviceState?
    }

    /// Processes `fix` for a device whose state is `state` (nil: never seen).
    public mutating func process(_ fix: Fix, state: DeviceState?) -> Outcome {
        if let state {
            if fix.time == state.lastTime {
                return Outcome(disposition: .duplicate, alerts: [], state: state)
            }
            if fix.time < state.lastTime {
                return Outcome(disposition: .late, alerts: [], state: state)
            }
        }
        guard fix.valid else {
            var next = state ?? DeviceState(lastTime: fix.time, lat: .nan, lon: .nan, fences: [])
            next.lastTime = fix.time
            return Outcome(disposition: .invalid, alerts: [], state: next)
        }
        let p = Coordinate(lat: fix.lat, lon: fix.lon)
        fences.containing(p, into: &scratch)
        var now = scratch.map { fences.fences[Int($0)].id }
        now.sort()
        let before = state?.fences ?? []
        var alerts: [Alert] = []
        if now != before {
            // Both lists are sorted: walk them together.
            var i = 0
            var j = 0
            while i < before.count || j < now.count {
                if j == now.count || (i < before.count && before[i] < now[j]) {
                    alerts.append(
                        Alert(
                            type: .geofenceExit, device: fix.device, time: fix.time,
                            fence: before[i], lat: fix.lat, lon: fix.lon))
                    i += 1
                } else if i == before.count || now[j] < before[i] {
                    alerts.append(
                        Alert(
                            type: .geofenceEnter, device: fix.device, time: fix.time, fence: now[j],
                            lat: fix.lat, lon: fix.lon))
                    j += 1
                } else {
                    i += 1
                    j += 1
                }
            }
        }
        let next = DeviceState(lastTime: fix.time, lat: fix.lat, lon: fix.lon, fences: now)
        return Outcome(disposition: .accepted, alerts: alerts, state: next)
    }
}
