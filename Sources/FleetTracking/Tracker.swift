import FleetGeo
import FleetProtocols

/// Per-device tracking: fixes in, alerts and new state out.
///
/// Pure and deterministic: time comes from the fixes, never from a clock, so
/// the same fixes in the same order give the same alerts and state.
///
/// Geofences: a fence containing the fix is entered (after its dwell, the
/// alert dated when the stay began); a device inside exits only once it is
/// more than the fence's margin outside the boundary (hysteresis) for
/// `exitConfirmFixes` fixes in a row and its dwell; the exit is dated from the
/// first of them and says how long the device was inside. When two consecutive
/// fixes are both outside a fence but the straight segment between them
/// passes through it, an enter and an exit are raised, flagged `crossed`
/// (fences with a dwell are exempt: a pass-through cannot satisfy it).
public struct Tracker: Sendable {
    public let fences: FenceIndex
    public let settings: TrackerSettings
    private let byId: [String: Int]
    private var scratch: [Int32] = []

    public init(fences: FenceIndex, settings: TrackerSettings = TrackerSettings()) {
        self.fences = fences
        self.settings = settings
        var byId: [String: Int] = [:]
        for (i, f) in fences.fences.enumerated() { byId[f.id] = i }
        self.byId = byId
    }

    /// What processing one fix produced.
    public struct Outcome: Sendable, Equatable {
        public var disposition: FixDisposition
        public var alerts: [Alert]
        /// The device's state after the fix (unchanged for duplicates and late fixes).
        public var state: DeviceState?
    }

    private func margin(_ f: Fence) -> Double { f.marginM ?? settings.marginM }
    private func dwellMs(_ f: Fence) -> Int64 {
        Int64(((f.dwellS ?? settings.dwellS) * 1000).rounded())
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
        var containing = Set<String>()
        for i in scratch { containing.insert(fences.fences[Int(i)].id) }

        var alerts: [Alert] = []
        var next: [FenceMembership] = []
        let before = state?.fences ?? []
        func alert(
            _ type: AlertType, _ fence: String, at time: Int64, duration: Int64? = nil,
            crossed: Bool = false
        ) {
            alerts.append(
                Alert(
                    type: type, device: fix.device, time: time, fence: fence, lat: fix.lat,
                    lon: fix.lon,
                    durationS: duration.map { Double($0) / 1000 }, crossed: crossed))
        }
        // Fences the device had a membership in.
        var known = Set<String>()
        for m in before {
            known.insert(m.fence)
            guard let index = byId[m.fence] else { continue }  // fence removed by a reload: forget it
            let fence = fences.fences[index]
            let inside = containing.contains(m.fence)
            switch m.phase {
            case .entering(let since):
                guard inside else { continue }  // left before the dwell: no alert
                if fix.time - since >= dwellMs(fence) {
                    alert(.geofenceEnter, m.fence, at: since)
                    next.append(FenceMembership(fence: m.fence, phase: .inside(since: since)))
                } else {
                    next.append(m)
                }
            case .inside(let since):
                if inside || !beyondMargin(fence, p) {
                    next.append(m)
                } else if settings.exitConfirmFixes <= 1 && dwellMs(fence) == 0 {
                    alert(.geofenceExit, m.fence, at: fix.time, duration: fix.time - since)
                } else {
                    next.append(
                        FenceMembership(
                            fence: m.fence,
                            phase: .exiting(enteredAt: since, since: fix.time, fixes: 1)))
                }
            case .exiting(let enteredAt, let since, let fixes):
                if inside || !beyondMargin(fence, p) {
                    next.append(FenceMembership(fence: m.fence, phase: .inside(since: enteredAt)))
                } else if fixes + 1 >= settings.exitConfirmFixes
                    && fix.time - since >= dwellMs(fence)
                {
                    alert(.geofenceExit, m.fence, at: since, duration: since - enteredAt)
                } else {
                    next.append(
                        FenceMembership(
                            fence: m.fence,
                            phase: .exiting(enteredAt: enteredAt, since: since, fixes: fixes + 1)))
                }
            }
        }
        // Fences newly containing the device.
        for id in containing.sorted() where !known.contains(id) {
            let fence = fences.fences[byId[id]!]
            if dwellMs(fence) == 0 {
                alert(.geofenceEnter, id, at: fix.time)
                next.append(FenceMembership(fence: id, phase: .inside(since: fix.time)))
            } else {
                next.append(FenceMembership(fence: id, phase: .entering(since: fix.time)))
            }
        }
        // Fences cut between the last position and this one.
        if let state, !state.lat.isNaN {
            let from = Coordinate(lat: state.lat, lon: state.lon)
            let mid = state.positionTime + (fix.time - state.positionTime) / 2
            // Fences the device is in or tracked in, and fences with a dwell, cannot be
            // crossed: skip them before the exact segment test.
            let cut = fences.touched(from: from, to: p) { i in
                let f = fences.fences[Int(i)]
                return known.contains(f.id) || containing.contains(f.id) || dwellMs(f) != 0
            }
            for i in cut {
                let fence = fences.fences[Int(i)]
                alerts.append(
                    Alert(
                        type: .geofenceEnter, device: fix.device, time: mid, fence: fence.id,
                        lat: fix.lat, lon: fix.lon, crossed: true))
                alerts.append(
                    Alert(
                        type: .geofenceExit, device: fix.device, time: mid, fence: fence.id,
                        lat: fix.lat, lon: fix.lon,
                        durationS: 0, crossed: true))
            }
        }
        next.sort { $0.fence < $1.fence }
        let nextState = DeviceState(
            lastTime: fix.time, lat: fix.lat, lon: fix.lon, positionTime: fix.time, fences: next)
        return Outcome(disposition: .accepted, alerts: alerts, state: nextState)
    }

    /// True when `p` (outside the fence) is more than the fence's margin from it.
    private func beyondMargin(_ fence: Fence, _ p: Coordinate) -> Bool {
        let m = margin(fence)
        return m <= 0 || fence.distanceToBoundary(p) > m
    }
}
