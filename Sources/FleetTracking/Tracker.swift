import FleetGeo
import FleetModel

/// Per-device tracking: fixes in, alerts, trips and new state out.
///
/// Pure and deterministic: time comes from the fixes, never from a clock, so
/// the same fixes in the same order give the same alerts, trips and state
/// (and a state persisted and read back continues exactly).
///
/// In order per device: a resend of the last fix time is a duplicate; an
/// older fix is late (stored, nothing else); an invalid fix only advances the
/// clock. A fix implying more than `jumpSpeedKmh` from the last accepted one,
/// or lying beyond the reach of the speed it reports (`jumpDecelerationMps2`),
/// is held as a jump suspect; once `jumpConfirmFixes` suspects among the last
/// `jumpWindowFixes` valid fixes agree with one another, the vehicle is moved
/// there (the path through them counts; the jump does not), so one real jump
/// never locks a device out.
///
/// Each concern is a detector of its own, composed here in this order: the
/// jump filter (`JumpFilter`), the odometer gate (`Motion`), the fences
/// (`FenceDetector`), overspeed (`OverspeedDetector`), the trip's maximum
/// speed (`SpeedWindow`), trips (`TripDetector`), the device's own inputs
/// and idling (`Tracker+DeviceIO`); silence is judged on the daemon's clock
/// (`Silence`).
///
/// Geofences: a fence containing the fix is entered (after its dwell, the
/// alert dated when the stay began; an entry no deeper than the margin only
/// after `shallowVisitS` inside); a device inside exits only once it is
/// more than the fence's margin outside the boundary (hysteresis) for
/// `exitConfirmFixes` fixes in a row and its dwell; the exit says how long
/// the device was inside. Entries and exits are dated where the way from
/// the previous fix crossed the boundary (`crossingTime`), else at the
/// fix (for an exit, the first beyond the margin). When two consecutive
/// fixes are both outside a fence but the straight segment between them
/// passes through it, an enter and an exit are raised, flagged `crossed`
/// (fences with a dwell are exempt: a pass-through cannot satisfy it), when
/// the segment goes deeper inside than the fence's margin (grazing an edge
/// is scatter or a chord across a bend, not a pass).
///
/// Overspeed against the lowest `speed_limit_kmh` of the fences containing the
/// fix (else `speedLimitKmh`), debounced by `overspeedMinS` both ways. Speed
/// is the reported one, else computed between accepted fixes (0 while parked).
///
/// Odometer and trips: see `Motion` (the gate against parked scatter) and
/// `TripPhase` (displacement-based trips, ended by a stay, a gap or ignition).
public struct Tracker: Sendable {
    public var fences: FenceIndex { fenceDetector.index }
    public let settings: TrackerSettings
    private var fenceDetector: FenceDetector
    private let jumpFilter: JumpFilter
    private let overspeedDetector: OverspeedDetector
    private let tripDetector: TripDetector

    public init(fences: FenceIndex, settings: TrackerSettings = TrackerSettings()) {
        self.settings = settings
        self.fenceDetector = FenceDetector(fences: fences, settings: settings)
        self.jumpFilter = JumpFilter(settings: settings)
        self.overspeedDetector = OverspeedDetector(settings: settings)
        self.tripDetector = TripDetector(settings: settings, fences: fences)
    }

    /// A parked vehicle's mean position is as uncertain as one fix divided
    /// by the square root of the number of independent fixes in it: its
    /// fixes, but at most one per this many milliseconds parked (GNSS error
    /// is correlated over about a minute, so sixty fixes of one minute are
    /// not sixty independent ones).
    static let parkedErrorCorrelationMs = 60_000.0

    /// Processes `fix` for a device whose state is `state` (nil: never seen)
    /// and returns what it produced with the state after it (`Outcome.state`).
    public mutating func process(_ fix: Fix, state: DeviceState?) -> Outcome {
        var st = state
        var outcome = process(fix, state: &st)
        outcome.state = st
        return outcome
    }

    /// Processes `fix`, updating the device's state in place (nil: never
    /// seen; set on its first fix). The outcome's `state` is left nil: the
    /// caller holds the state (no copy of it per fix). `containing`, when
    /// given, is the index's answer for the fix's position (`FenceIndex.
    /// containing`, in any order), e.g. from a batched classification; the
    /// tracker does not ask again. Duplicates and late fixes leave the state
    /// untouched (`Outcome.changesState` false).
    public mutating func process(
        _ fix: Fix, state: inout DeviceState?, containing: UnsafeBufferPointer<Int32>? = nil
    ) -> Outcome {
        if let last = state?.lastTime {
            if fix.time == last { return Outcome(disposition: .duplicate, alerts: [], state: nil) }
            if fix.time < last { return Outcome(disposition: .late, alerts: [], state: nil) }
        } else {
            state = DeviceState(lastTime: fix.time, lat: .nan, lon: .nan, fences: [])
        }
        return advance(fix, state: &state!, containing: containing)
    }

    /// A fix in order for a device whose state is `st`.
    private mutating func advance(
        _ fix: Fix, state st: inout DeviceState, containing: UnsafeBufferPointer<Int32>?
    ) -> Outcome {
        var alerts: [Alert] = []
        if st.silent {
            alerts.append(
                Alert(
                    type: .deviceBack, device: fix.device, time: fix.time, fence: nil,
                    lat: fix.lat, lon: fix.lon,
                    details: [AlertDetail("silent_s", Double(fix.time - st.lastTime) / 1000)]))
            st.silent = false
        }
        st.lastTime = fix.time
        let driverBefore = st.driver
        deviceInputs(fix, state: &st, alerts: &alerts)
        guard fix.valid else {
            return Outcome(disposition: .invalid, alerts: alerts, state: nil)
        }
        st.seq += 1
        var via: [Suspect]?
        switch jumpFilter.screen(fix, state: &st) {
        case .pass: break
        case .relocate(let suspects): via = suspects
        case .hold: return Outcome(disposition: .jump, alerts: alerts, state: nil)
        }
        var outcome = accept(fix, state: &st, relocatedVia: via, containing: containing)
        // A fence's alerts carry its name beside its id (`fence_name`), as
        // trips carry both (`start_fence`, `start_fence_id`).
        for i in outcome.alerts.indices {
            if let id = outcome.alerts[i].fence, let name = fenceName(id: id) {
                outcome.alerts[i].details.append(AlertDetail("fence_name", name))
            }
        }
        if let driver = st.driver ?? driverBefore {
            for k in outcome.trips.indices { outcome.trips[k].driver = driver }
            for k in outcome.alerts.indices
            where outcome.alerts[k].type == .tripStart || outcome.alerts[k].type == .tripEnd {
                outcome.alerts[k].details.append(AlertDetail("driver", driver))
            }
        }
        if !alerts.isEmpty { outcome.alerts = alerts + outcome.alerts }
        if let via { outcome.confirmed = via.map(\.time) }
        return outcome
    }

    /// The name of the fence with id `id`, if this tracker's fences have it.
    public func fenceName(id: String) -> String? { fenceDetector.name(id: id) }

    /// A parked vehicle creeping away from its mean (`Motion.still`), seen
    /// before the odometer gate calls it moving: `fix` and the accepted
    /// position before it (`prev`) both lie beyond half of `stillRadiusM`
    /// from the mean `mean`, on the same side of it (their bearings from
    /// it within 45°), `fix` the farther, the step between them heading
    /// away from the mean (within 45° of the bearing to `fix`), and `fix`
    /// reports no speed of 0.
    /// Its fences are then judged on the fix, not the mean, so an exit
    /// comes where the vehicle crossed out rather than where the gate
    /// confirms the departure (up to `stillRadiusM` later). A parked
    /// device's scatter rarely lands twice in a row beyond that distance,
    /// on one side and receding; one reporting that it stands never.
    func creeping(_ fix: Fix, from mean: Coordinate, prev: Waypoint?) -> Bool {
        guard let prev, (fix.speedKmh ?? 1) > 0 else { return false }
        let half = settings.stillRadiusM / 2
        let around = LocalProjection(lat0: mean.lat, lon0: mean.lon)
        let a = around.project(lat: prev.lat, lon: prev.lon)
        let b = around.project(lat: fix.lat, lon: fix.lon)
        let da = (a.x * a.x + a.y * a.y).squareRoot()
        let db = (b.x * b.x + b.y * b.y).squareRoot()
        guard da > half, db > da else { return false }
        let step = (x: b.x - a.x, y: b.y - a.y)
        let ds = (step.x * step.x + step.y * step.y).squareRoot()
        let cos45 = 0.5.squareRoot()
        return (a.x * b.x + a.y * b.y) / (da * db) >= cos45
            && (step.x * b.x + step.y * b.y) / (ds * db) >= cos45
    }

    /// A fix that passed the filters: moves the vehicle, runs every detector.
    private mutating func accept(
        _ fix: Fix, state st: inout DeviceState, relocatedVia via: [Suspect]?,
        containing: UnsafeBufferPointer<Int32>?
    ) -> Outcome {
        let prev = st.lastWaypoint
        let wasStill = st.motion?.isStill ?? true
        st.accepted += 1
        let gap = prev.map { Double(fix.time - $0.time) > settings.tripGapS * 1000 } ?? false
        var here = Waypoint(
            time: fix.time, lat: fix.lat, lon: fix.lon, odometerM: st.odometerM, fixNo: st.accepted)
        // A fix that says it is vague (`odometerMaxAccuracyM`) moves the
        // vehicle nowhere: its time counts, its position adds no distance
        // and starts nothing (the reported multipath outlier, the urban
        // canyon); fences still judge it, through the accuracy gate.
        let vague = settings.isVague(accuracyM: fix.accuracyM, hdop: fix.extra?.hdop)
        if let prev, vague {
            here.lat = prev.lat
            here.lon = prev.lon
        }
        // A departure's first fix, held by the odometer gate until this one
        // confirmed it: the way from the parked place to it (`firstLeg`).
        var firstLeg: (from: Waypoint, to: Waypoint)?
        var parkedOnMean = false
        // Where and since when the vehicle stood before this fix (its
        // parked mean): a fence entered by a fix while the mean lay inside
        // it was entered when the vehicle came to rest there.
        var standing: (at: Coordinate, since: Int64)?
        if case .still(let lat, let lon, let weight, let rest, let pending)? = st.motion,
            weight >= 2
        {
            parkedOnMean = true
            standing = (Coordinate(lat: lat, lon: lon), rest.time)
            if let q = pending {
                var parkedAt = rest
                parkedAt.lat = lat
                parkedAt.lon = lon
                // Left after the last fix near where it stood (the trip's watch).
                if case .parked(_, let near)? = st.trip, near.time < q.time {
                    parkedAt.time = max(parkedAt.time, near.time)
                }
                firstLeg = (parkedAt, q)
            }
        }
        // Odometer and speed.
        var from = prev.map { (t: $0.time, lat: $0.lat, lon: $0.lon) }
        if let via {
            var path = via.map { (t: $0.time, lat: $0.lat, lon: $0.lon) }
            path.append((t: fix.time, lat: fix.lat, lon: fix.lon))
            for k in path.indices.dropFirst() {
                here.odometerM += Geodesic.distance(
                    lat1: path[k - 1].lat, lon1: path[k - 1].lon, lat2: path[k].lat,
                    lon2: path[k].lon)
            }
            from = path.count > 1 ? path[path.count - 2] : nil
            st.motion = .moving(rest: here, stay: Motion.Stay())
        } else if let prev, !gap, var motion = st.motion {
            here.odometerM = motion.advance(
                to: here, from: (prev.lat, prev.lon), settings: settings)
            st.motion = motion
        } else {
            st.motion = .parked(at: here)
            from = nil
        }
        st.odometerM = here.odometerM
        var speed = 0.0
        if let s = fix.speedKmh {
            speed = s
        } else if let from, st.motion?.isStill == false, fix.time > from.t {
            speed =
                Geodesic.distance(lat1: from.lat, lon1: from.lon, lat2: fix.lat, lon2: fix.lon)
                / (Double(fix.time - from.t) / 1000) * 3.6
        }

        // Where the fences are judged: the fix (a vague one too when the
        // accuracy gate is off), or, while the vehicle is
        // parked (no fix of a departure pending), the mean of its parked
        // fixes (`Motion.still`), whose uncertainty shrinks with the number
        // of independent fixes in it (`independent`): a parked vehicle's
        // scatter and its unreported outliers change no membership, and one
        // parked within a fence's margin outside it stays where the path
        // left it. A fence entered on the mean is entered since the vehicle
        // came to rest there (`restTime`).
        var p = Coordinate(lat: fix.lat, lon: fix.lon)
        var independent = 1.0
        var restTime: Int64?
        if case .still(let lat, let lon, let weight, let rest, nil)? = st.motion, weight >= 2,
            settings.accuracyGate || !vague,
            vague || !creeping(fix, from: Coordinate(lat: lat, lon: lon), prev: prev)
        {
            p = Coordinate(lat: lat, lon: lon)
            let spans = 1 + Double(fix.time - rest.time) / Self.parkedErrorCorrelationMs
            independent = min(Double(weight), spans)
            restTime = rest.time
        }
        let parked = restTime != nil
        // Crossings are inferred only on a way the odometer gate calls
        // movement: from a vehicle parked on a mean to one scattered fix
        // (an unreported outlier, the first fix of a departure not yet
        // confirmed) the chord is no path driven; nor to a vague fix (one
        // that says it may be anywhere within its accuracy).
        let crossable = !vague && !(parkedOnMean && st.motion?.isStill == true)
        var alerts: [Alert] = []
        let limit = fenceDetector.judge(
            fix,
            FenceDetector.Judgement(
                at: p, independent: independent, enteredAt: restTime ?? fix.time, parked: parked,
                standing: standing, prev: prev, crossable: crossable, relocated: via != nil,
                firstLeg: firstLeg),
            containing: containing, state: &st, alerts: &alerts)
        st.lat = here.lat
        st.lon = here.lon
        st.positionTime = fix.time
        overspeedDetector.advance(fix, speed: speed, limit: limit, state: &st, alerts: &alerts)
        // A trip's maximum speed is measured over spans (`SpeedWindow`), not per fix.
        var spanKmh = 0.0
        let windowMs = Int64((settings.maxSpeedWindowS * 1000).rounded())
        if windowMs <= 0 {
            spanKmh = speed
        } else if let prev, !gap, via == nil, !wasStill, var w = st.window {
            spanKmh =
                w.add(
                    time: fix.time, odometerM: here.odometerM, reportedKmh: fix.speedKmh,
                    stepMs: fix.time - prev.time, windowMs: windowMs) ?? 0
            st.window = w
        } else {
            st.window = SpeedWindow(since: fix.time, odometerM: here.odometerM)
        }
        var trips: [Trip] = []
        tripDetector.advance(
            fix, here: here, prev: prev, gap: gap, speed: spanKmh, state: &st, alerts: &alerts,
            trips: &trips)
        idling(fix, prev: prev, departed: firstLeg?.from, state: &st, alerts: &alerts)
        return Outcome(disposition: .accepted, alerts: alerts, state: nil, trips: trips)
    }
}
