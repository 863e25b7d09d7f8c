import FleetGeo
import FleetModel
import Synchronization

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
    public let fences: FenceIndex
    public let settings: TrackerSettings
    /// For each fence index, the rank of its id among the distinct ids in
    /// ascending order (the order memberships are kept in); `idByRank` the
    /// reverse, `rankById` the look-up by id. Fences sharing an id are one
    /// fence to the tracker (memberships are kept by id): the last of them
    /// (`indexByRank`) stands for it. Lets fixes be checked against
    /// memberships by merging sorted ranks, with no sets and almost no
    /// hashing.
    private let idByRank: [String]
    private let rankById: [String: Int32]
    private let indexByRank: [Int32]
    /// Per-fix scratch, kept between fixes so the hot path allocates
    /// nothing: the containing fences, their ranks, the memberships' ranks
    /// and indices, and the memberships being built.
    private var scratch: [Int32] = []
    private var ranks: [Int32] = []
    private var heldRanks: [Int32] = []
    private var heldAt: [Int] = []
    private var building: [FenceMembership] = []
    /// Per fence index, what every fix reads of the fences containing it,
    /// in one place (one cache line per fence, not one per table): its id's
    /// rank, its dwell (ms) and its speed limit (0: none). `hasLimits`: some
    /// fence has a limit (else the fix's limit is the default, unread).
    private let facts: [Facts]
    private let hasLimits: Bool
    private struct Facts {
        var rank: Int32
        var dwellMs: Int64
        var limitKmh: Double
    }
    /// This tracker's generation: memberships written by it carry their
    /// fences' ranks (`RankHint`), trusted only by the same generation (a
    /// reload makes a new tracker, with new ranks).
    private let epoch: UInt32
    private static let generations = Atomic<UInt32>(0)

    public init(fences: FenceIndex, settings: TrackerSettings = TrackerSettings()) {
        self.fences = fences
        self.settings = settings
        var byId: [String: Int] = [:]
        for (i, f) in fences.fences.enumerated() { byId[f.id] = i }
        self.idByRank = byId.keys.sorted()
        var rank: [String: Int32] = [:]
        for (r, id) in idByRank.enumerated() { rank[id] = Int32(r) }
        self.rankById = rank
        self.indexByRank = idByRank.map { Int32(byId[$0]!) }
        self.facts = fences.fences.map {
            Facts(
                rank: rank[$0.id]!,
                dwellMs: Int64((($0.dwellS ?? settings.dwellS) * 1000).rounded()),
                limitKmh: $0.speedLimitKmh ?? 0)
        }
        self.hasLimits = facts.contains { $0.limitKmh > 0 }
        var e = Self.generations.wrappingAdd(1, ordering: .relaxed).newValue
        if e == 0 { e = Self.generations.wrappingAdd(1, ordering: .relaxed).newValue }
        self.epoch = e
    }

    /// What processing one fix produced.
    public struct Outcome: Sendable, Equatable {
        public var disposition: FixDisposition
        public var alerts: [Alert]
        /// The device's state after the fix (unchanged for duplicates and late
        /// fixes); nil from the in-place `process(_:state:containing:)`.
        /// Kept out of line: the in-place path, the daemon's, moves outcomes
        /// by the thousand with no state, and a `DeviceState` is 328 bytes.
        public var state: DeviceState? {
            get { stateBox?.state }
            set { stateBox = newValue.map(StateBox.init) }
        }
        private var stateBox: StateBox?
        /// Trips the fix ended.
        public var trips: [Trip] = []
        /// Times (ms) of earlier fixes held as jump suspects that this fix
        /// confirmed: their stored disposition becomes `accepted`.
        public var confirmed: [Int64] = []

        /// The state to keep and store: nil when the fix changed nothing
        /// (a duplicate or a late fix), or when the state was updated in place.
        public var newState: DeviceState? { changesState ? state : nil }

        /// False for a duplicate or a late fix: the device's state is as it was.
        public var changesState: Bool { disposition != .duplicate && disposition != .late }

        public init(
            disposition: FixDisposition, alerts: [Alert], state: DeviceState?, trips: [Trip] = [],
            confirmed: [Int64] = []
        ) {
            self.disposition = disposition
            self.alerts = alerts
            self.stateBox = state.map(StateBox.init)
            self.trips = trips
            self.confirmed = confirmed
        }

        public static func == (a: Outcome, b: Outcome) -> Bool {
            a.disposition == b.disposition && a.alerts == b.alerts && a.state == b.state
                && a.trips == b.trips && a.confirmed == b.confirmed
        }

        /// An immutable box: outcomes stay values (a copy shares the box,
        /// and setting `state` replaces it).
        private final class StateBox: Sendable {
            let state: DeviceState
            init(_ state: DeviceState) { self.state = state }
        }
    }

    private func margin(_ f: Fence) -> Double { f.marginM ?? settings.marginM }

    /// The entry hysteresis (`TrackerSettings.shallowVisitS`): true when a
    /// device at `p`, inside `fence` for `inside` ms, has entered it for
    /// good: deeper than the fence's margin, or inside long enough.
    private func deepEnough(_ fence: Fence, _ p: Coordinate, inside: Int64) -> Bool {
        let m = margin(fence)
        guard settings.shallowVisitS > 0, m > 0 else { return true }
        return Double(inside) >= settings.shallowVisitS * 1000 || !fence.boundary(within: m, of: p)
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
        // The jump filter.
        var via: [Suspect]?
        if let last = st.lastWaypoint, isJump(from: (last.time, last.lat, last.lon), to: fix) {
            let n = Int64(max(1, settings.jumpWindowFixes))
            let seq = st.seq
            st.suspects.removeAll { $0.seq <= seq - n }
            // Suspects agree by the speed bound alone: a device whose
            // reported speeds are wrong (0 while driving) is moved, not locked out.
            let agreeing = st.suspects.filter {
                !isJump(from: ($0.time, $0.lat, $0.lon), to: fix, reach: false)
            }
            if agreeing.count + 1 >= settings.jumpConfirmFixes {
                via = agreeing
                st.suspects = []
            } else {
                st.suspects.append(Suspect(time: fix.time, lat: fix.lat, lon: fix.lon, seq: st.seq))
                if st.suspects.count >= n {
                    st.suspects.removeFirst(st.suspects.count - Int(n) + 1)
                }
                return Outcome(disposition: .jump, alerts: alerts, state: nil)
            }
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

    /// The jump filter's two tests of `fix` against the last accepted
    /// position (or, with `reach` false, only the first, against an earlier
    /// suspect it may agree with): it implies more than `jumpSpeedKmh` after
    /// forgiving `jumpAllowanceM`, or it lies beyond the reach of the speed
    /// it reports itself (off when `jumpDecelerationMps2` is 0). A
    /// `jumpSpeedKmh` of 0 turns both off. The reach is that speed over the
    /// time between them, plus what slowing down to it from a higher one at
    /// `jumpDecelerationMps2` adds (a·t²/2), plus six times the fix's
    /// reported accuracy (at least 25 m, at most `jumpAllowanceM`). It
    /// catches a multipath outlier hundreds of metres off with an ordinary
    /// accuracy, which the speed bound lets through on a device reporting
    /// every few seconds. Only a fix that reports both its speed (0 too: an
    /// outlier as the vehicle stops) and its accuracy (or HDOP) is held to
    /// its reach.
    private func isJump(
        from last: (time: Int64, lat: Double, lon: Double), to fix: Fix, reach: Bool = true
    ) -> Bool {
        guard settings.jumpSpeedKmh > 0 else { return false }
        let d = Geodesic.distance(lat1: last.lat, lon1: last.lon, lat2: fix.lat, lon2: fix.lon)
        let dt = Double(max(1, fix.time - last.time)) / 1000
        if max(0, d - settings.jumpAllowanceM) / dt * 3.6 > settings.jumpSpeedKmh { return true }
        let decel = settings.jumpDecelerationMps2
        guard reach, decel > 0, let kmh = fix.speedKmh, kmh >= 0, kmh.isFinite,
            let u = reportedAccuracy(fix)
        else { return false }
        let allowance = min(settings.jumpAllowanceM, max(25, 6 * u))
        return d > kmh / 3.6 * dt + decel * dt * dt / 2 + allowance
    }

    /// Names of the fences containing a position, ", " between several; nil when none.
    public func fenceNames(lat: Double, lon: Double) -> String? {
        let hits = fences.containing(Coordinate(lat: lat, lon: lon))
        guard !hits.isEmpty else { return nil }
        return Set(hits.map { fences.fences[Int($0)].name }).sorted().joined(separator: ", ")
    }

    /// Ids of the fences containing a position, sorted, ", " between
    /// several; nil when none.
    public func fenceIds(lat: Double, lon: Double) -> String? {
        let hits = fences.containing(Coordinate(lat: lat, lon: lon))
        guard !hits.isEmpty else { return nil }
        return Set(hits.map { fences.fences[Int($0)].id }).sorted().joined(separator: ", ")
    }

    /// The name of the fence with id `id`, if this tracker's fences have it.
    public func fenceName(id: String) -> String? {
        guard let r = rankById[id] else { return nil }
        return fences.fences[Int(indexByRank[Int(r)])].name
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
            settings.accuracyGate || !vague
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
        if let containing, !parked {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: containing)
        } else {
            fences.containing(p, into: &scratch)
        }
        var alerts: [Alert] = []
        // Confirmed a departure: the first leg (parked place to the held
        // fix) is a way driven too; crossings on it, dated on it.
        if crossable, via == nil, let leg = firstLeg {
            var end = fix
            end.time = leg.to.time
            end.lat = leg.to.lat
            end.lon = leg.to.lon
            let held = st.fences
            let kept = crossings(
                from: leg.from, to: Coordinate(lat: leg.to.lat, lon: leg.to.lon), fix: end,
                member: { i in held.contains { $0.fence == self.fences.fences[Int(i)].id } },
                alerts: &alerts)
            if !kept.isEmpty {
                st.fences += kept
                st.fences.sort { $0.fence < $1.fence }
            }
        }
        // The containing fences' ranks, and the speed limit: the lowest
        // among them, else the default.
        ranks.removeAll(keepingCapacity: true)
        var limit = settings.speedLimitKmh
        for i in scratch {
            let f = facts[Int(i)]
            ranks.append(f.rank)
            if hasLimits, f.limitKmh > 0, limit <= 0 || f.limitKmh < limit { limit = f.limitKmh }
        }
        // The common case: inside exactly the fences the device was already
        // inside (confirmed), in none entering or leaving. Nothing changes.
        ranks.sort()
        var unique = 0
        for r in ranks where unique == 0 || ranks[unique - 1] != r {
            ranks[unique] = r
            unique += 1
        }
        ranks.removeLast(ranks.count - unique)
        // Ranks cached by this tracker are compared as they are; otherwise
        // the ids, and the ranks are cached for the next fixes.
        let cached = st.ranksEpoch.value == epoch
        var steady = st.fences.count == ranks.count
        if steady {
            for (k, m) in st.fences.enumerated() {
                let same =
                    cached
                    ? m.rank.value == UInt32(bitPattern: ranks[k])
                    : m.fence == idByRank[Int(ranks[k])]
                guard case .inside = m.phase, same else {
                    steady = false
                    break
                }
            }
        }
        if steady && !cached {
            for k in st.fences.indices {
                st.fences[k].rank = RankHint(UInt32(bitPattern: ranks[k]))
            }
            st.ranksEpoch = RankHint(epoch)
        }
        if steady {
            if let prev, via == nil, crossable {
                let ranks = self.ranks
                let facts = self.facts
                let held = crossings(
                    from: prev, to: p, fix: fix,
                    member: { i in Self.sortedContains(ranks, facts[Int(i)].rank) },
                    alerts: &alerts)
                if !held.isEmpty {
                    st.fences += held
                    st.fences.sort { $0.rank.value < $1.rank.value }
                    st.ranksEpoch = RankHint(epoch)
                }
            }
        } else {
            memberships(
                fix, at: p, uncertain: uncertainty(fix) / independent.squareRoot(),
                enteredAt: restTime ?? fix.time, standing: restTime == nil ? standing : nil,
                prev: crossable ? prev : nil, via: via, state: &st,
                alerts: &alerts)
        }
        st.lat = here.lat
        st.lon = here.lon
        st.positionTime = fix.time
        overspeed(fix, speed: speed, limit: limit, state: &st, alerts: &alerts)
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
        advanceTrip(
            fix, here: here, prev: prev, gap: gap, speed: spanKmh, state: &st, alerts: &alerts,
            trips: &trips)
        idling(fix, prev: prev, departed: firstLeg?.from, state: &st, alerts: &alerts)
        return Outcome(disposition: .accepted, alerts: alerts, state: nil, trips: trips)
    }

    /// True when one of 15 evenly spaced points of the segment is inside
    /// `fence` and more than `margin` metres from its boundary.
    private static func passesDeep(
        _ fence: Fence, from a: Coordinate, to b: Coordinate, margin: Double
    ) -> Bool {
        deepPoint(fence, from: a, to: b, margin: margin) != nil
    }

    /// The first of 15 evenly spaced points of the segment inside `fence`
    /// more than `margin` metres from its boundary, as a fraction of the way.
    private static func deepPoint(
        _ fence: Fence, from a: Coordinate, to b: Coordinate, margin: Double
    ) -> Double? {
        for k in 1..<16 {
            let f = Double(k) / 16
            let q = Coordinate(lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f)
            if fence.contains(q), margin <= 0 || !fence.boundary(within: margin, of: q) {
                return f
            }
        }
        return nil
    }

    /// When the straight way from `a` (at `ta`, ms) to `b` (at `tb`) crossed
    /// `fence`'s boundary, interpolated in time along it (bisection to
    /// 1/65 536 of the way); nil when both ends are on the same side, or when
    /// the way is slower than `interpolateMinMps` on average (a vehicle
    /// that stood for part of it: when it moved is unknown). Entries and
    /// exits are dated by it: after a tunnel, a coverage gap or a sparse
    /// device's interval, the crossing lies between the fixes, not at the
    /// first fix beyond it.
    static func crossingTime(
        _ fence: Fence, from a: Coordinate, at ta: Int64, to b: Coordinate, at tb: Int64
    ) -> Int64? {
        let inA = fence.contains(a)
        guard inA != fence.contains(b), tb > ta else { return nil }
        let metres = Haversine.distance(a, b)
        guard metres >= interpolateMinMps * Double(tb - ta) / 1000 else { return nil }
        var lo = 0.0
        var hi = 1.0
        for _ in 0..<16 {
            let f = (lo + hi) / 2
            let q = Coordinate(lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f)
            if fence.contains(q) == inA { lo = f } else { hi = f }
        }
        return ta + Int64((Double(tb - ta) * hi).rounded())
    }

    /// When the straight way from `prev` to `p` (at `time`, ms), both ends
    /// outside `fence` (for an end inside, the caller dates the entry
    /// itself), went in and came out: where it crossed in before and
    /// out after its deep point (`deep`, a fraction of the way, from
    /// `deepPoint`), interpolated in time (`crossingTime`); else, or for a
    /// way too slow to interpolate, its middle.
    static func passTimes(
        _ fence: Fence, from prev: Waypoint, to p: Coordinate, at time: Int64, deep: Double?
    ) -> (entered: Int64, left: Int64) {
        let mid = prev.time + (time - prev.time) / 2
        guard let f = deep else { return (mid, mid) }
        let from = Coordinate(lat: prev.lat, lon: prev.lon)
        let q = Coordinate(
            lat: from.lat + (p.lat - from.lat) * f, lon: from.lon + (p.lon - from.lon) * f)
        let tq = prev.time + Int64((Double(time - prev.time) * f).rounded())
        let entered = crossingTime(fence, from: from, at: prev.time, to: q, at: tq) ?? mid
        let left = max(entered, crossingTime(fence, from: q, at: tq, to: p, at: time) ?? mid)
        return (entered, left)
    }

    /// The slowest average speed (m/s) of a way between two fixes along
    /// which a crossing is dated by interpolation (7.2 km/h: driving).
    static let interpolateMinMps = 2.0

    private static func sortedContains(_ a: [Int32], _ v: Int32) -> Bool {
        var lo = 0
        var hi = a.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if a[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        return lo < a.count && a[lo] == v
    }

    /// Enter and exit pairs (flagged `crossed`) for the fences the segment
    /// from the last position to this fix passes through while both ends are
    /// outside. Fences the device is in or tracked in (`member`), and fences
    /// with a dwell, cannot be crossed: they are skipped before the exact test.
    /// When the segment ends within a fence's margin outside it, only the
    /// enter is raised: the device is inside by the hysteresis, as if a fix
    /// had been taken inside, and leaves by the usual rule; its membership
    /// is returned for the caller to keep.
    private func crossings(
        from prev: Waypoint, to p: Coordinate, fix: Fix, member: (Int32) -> Bool,
        alerts: inout [Alert]
    ) -> [FenceMembership] {
        var kept: [FenceMembership] = []
        let from = Coordinate(lat: prev.lat, lon: prev.lon)
        // Every fence containing `p` is a member, so the index need not find the ends'.
        let cut = fences.touched(from: from, to: p, endsExcluded: true) { i in
            member(i) || facts[Int(i)].dwellMs != 0
        }
        for i in cut {
            let fence = fences.fences[Int(i)]
            // A segment that only grazes the fence is scatter around its
            // edge or a chord across a bend, not a pass: some point of it
            // (of 15 evenly spaced) must lie inside farther than the fence's
            // margin from the boundary.
            let m = margin(fence)
            let deep = Self.deepPoint(fence, from: from, to: p, margin: m)
            if m > 0, deep == nil { continue }
            let (entered, left) = Self.passTimes(fence, from: prev, to: p, at: fix.time, deep: deep)
            alerts.append(
                Alert(
                    type: .geofenceEnter, device: fix.device, time: entered, fence: fence.id,
                    lat: fix.lat, lon: fix.lon, crossed: true))
            if m > 0, fence.boundary(within: m, of: p) {
                var held = FenceMembership(fence: fence.id, phase: .inside(since: entered))
                held.rank = RankHint(UInt32(bitPattern: facts[Int(i)].rank))
                kept.append(held)
                continue
            }
            alerts.append(
                Alert(
                    type: .geofenceExit, device: fix.device, time: left, fence: fence.id,
                    lat: fix.lat, lon: fix.lon,
                    durationS: Double(left - entered) / 1000, crossed: true))
        }
        return kept
    }

    /// The general case of the fence detectors: every membership advanced
    /// (dwell, hysteresis, exit confirmation), new fences entered, crossings.
    /// `p` is where the fences are judged, `uncertain` the accuracy gate's
    /// radius there (0: not gated), `enteredAt` the time a fence entered now
    /// is entered since (`standing.since` for a fence that encloses
    /// `standing.at`, the mean the vehicle stood on before this fix);
    /// `prev` nil skips the crossings.
    private mutating func memberships(
        _ fix: Fix, at p: Coordinate, uncertain: Double, enteredAt: Int64,
        standing: (at: Coordinate, since: Int64)? = nil, prev: Waypoint?,
        via: [Suspect]?, state st: inout DeviceState, alerts: inout [Alert]
    ) {
        // `ranks`: the containing fences' id ranks, ascending and distinct.
        // Memberships are kept in id order, which is rank order: one merge
        // of the two, no sets. The scratch arrays are taken from `self` for
        // the call and given back (their storage reused from fix to fix).
        let ranks = self.ranks
        var heldRanks = self.heldRanks
        var heldAt = self.heldAt
        var next = self.building
        self.heldRanks = []
        self.heldAt = []
        self.building = []
        defer {
            heldRanks.removeAll(keepingCapacity: true)
            heldAt.removeAll(keepingCapacity: true)
            next.removeAll(keepingCapacity: true)
            self.heldRanks = heldRanks
            self.heldAt = heldAt
            self.building = next
        }
        var q = 0
        var ordered = true
        let cached = st.ranksEpoch.value == epoch
        for (at, m) in st.fences.enumerated() {
            let r: Int32
            if cached {
                r = Int32(bitPattern: m.rank.value)  // written by this tracker: no ids looked at
            } else if q < ranks.count, idByRank[Int(ranks[q])] == m.fence {
                r = ranks[q]  // the usual case, the next containing fence: no hashing
            } else if let known = rankById[m.fence] {
                r = known
            } else {
                continue  // fence removed by a reload: forget it
            }
            while q < ranks.count && ranks[q] <= r { q += 1 }
            if let last = heldRanks.last, last >= r { ordered = false }
            heldRanks.append(r)
            heldAt.append(at)
        }
        if !ordered {
            let pairs = zip(heldRanks, heldAt).sorted { $0.0 < $1.0 }
            heldRanks = pairs.map(\.0)
            heldAt = pairs.map(\.1)
        }
        func alert(
            _ type: AlertType, _ fence: String, at time: Int64, duration: Int64? = nil
        ) {
            alerts.append(
                Alert(
                    type: type, device: fix.device, time: time, fence: fence, lat: fix.lat,
                    lon: fix.lon, durationS: duration.map { Double($0) / 1000 }))
        }
        // The last position, where the way to this fix starts (nil: none).
        let from = prev.map { Coordinate(lat: $0.lat, lon: $0.lon) }
        // True when the way from the last position here, which one end of
        // lies outside `fence`, went deeper into it than its margin (the
        // entry hysteresis is then met). Between two fixes both inside, a
        // chord across a corner is no deeper way driven.
        func passedDeep(_ fence: Fence) -> Bool {
            let m = margin(fence)
            guard let from, m > 0, settings.shallowVisitS > 0 else { return false }
            guard !fence.contains(from) || !fence.contains(p) else { return false }
            return Self.passesDeep(fence, from: from, to: p, margin: m)
        }
        // A device inside `fence` since `since`: stays (inside, or within the
        // margin outside), exits, or starts to.
        func stayOrLeave(
            _ m: inout FenceMembership, since: Int64, fence: Fence, inside: Bool, dwell: Int64
        ) {
            if inside || !beyondMargin(fence, p) {
                next.append(m)
                return
            }
            // Dated where the way from the last position crossed out.
            var left = fix.time
            if let prev, let from,
                let t = Self.crossingTime(fence, from: from, at: prev.time, to: p, at: fix.time)
            {
                left = max(t, since)
            }
            if settings.exitConfirmFixes <= 1 && dwell == 0 {
                alert(.geofenceExit, m.fence, at: left, duration: left - since)
            } else {
                m.phase = .exiting(enteredAt: since, since: left, fixes: 1)
                next.append(m)
            }
        }
        var k = 0  // into `ranks`
        // Fences newly containing the device, with ranks below `limit`
        // (none whose boundary lies within the fix's uncertainty).
        func enter(below limit: Int32) {
            while k < ranks.count && ranks[k] < limit {
                let r = Int(ranks[k])
                let index = Int(indexByRank[r])
                let fence = fences.fences[index]
                if uncertain > 0, fence.boundary(within: uncertain, of: p), !passedDeep(fence) {
                    k += 1
                    continue
                }
                let id = idByRank[r]
                // A moving device's entry is dated where the way from the
                // last position crossed in (a parked one's, from its rest).
                var enteredAt = enteredAt
                if let standing, fence.contains(standing.at) {
                    enteredAt = standing.since
                } else if enteredAt == fix.time, let prev, let from,
                    let t = Self.crossingTime(fence, from: from, at: prev.time, to: p, at: fix.time)
                {
                    enteredAt = t
                }
                var m = FenceMembership(fence: id, phase: .entering(since: enteredAt))
                m.rank = RankHint(UInt32(bitPattern: ranks[k]))
                if facts[index].dwellMs == 0, settings.enterConfirmFixes <= 1,
                    deepEnough(fence, p, inside: fix.time - enteredAt) || passedDeep(fence)
                {
                    alert(.geofenceEnter, id, at: enteredAt)
                    m.phase = .inside(since: enteredAt)
                }
                next.append(m)
                k += 1
            }
        }
        // Fences the device had a membership in, and new ones between them.
        for (h, r) in heldRanks.enumerated() {
            var m = st.fences[heldAt[h]]
            m.rank = RankHint(UInt32(bitPattern: r))
            enter(below: r)
            let inside: Bool
            if k < ranks.count && ranks[k] == r {
                inside = true
                k += 1
            } else {
                inside = k > 0 && ranks[k - 1] == r
            }
            let index = Int(indexByRank[Int(r)])
            // The accuracy gate: a fix that may be on either side of this
            // fence's boundary changes nothing about it (no exit, no step
            // towards one, no return from one, no end of a dwell), unless
            // it confirms an entry by a way driven deeper than the margin.
            if uncertain > 0, fences.fences[index].boundary(within: uncertain, of: p) {
                var deepWay = false
                if case .entering = m.phase { deepWay = passedDeep(fences.fences[index]) }
                if !deepWay {
                    next.append(m)
                    continue
                }
            }
            let dwell = facts[index].dwellMs
            switch m.phase {
            case .entering(let since):
                let fence = fences.fences[index]
                guard inside else {
                    // Left before the dwell or the entry hysteresis: no
                    // alert, unless the way out went deeper than the margin
                    // (a sparse device's one fix inside, near the edge, of
                    // a fence it drove through).
                    if dwell == 0, settings.enterConfirmFixes <= 1, passedDeep(fence) {
                        alert(.geofenceEnter, m.fence, at: since)
                        m.phase = .inside(since: since)
                        stayOrLeave(&m, since: since, fence: fence, inside: inside, dwell: dwell)
                    }
                    continue
                }
                if fix.time - since >= dwell,
                    deepEnough(fence, p, inside: fix.time - since) || passedDeep(fence)
                {
                    alert(.geofenceEnter, m.fence, at: since)
                    m.phase = .inside(since: since)
                }
                next.append(m)
            case .inside(let since):
                stayOrLeave(
                    &m, since: since, fence: fences.fences[index], inside: inside, dwell: dwell)
            case .exiting(let enteredAt, let since, let fixes):
                let fence = fences.fences[index]
                if inside || !beyondMargin(fence, p) {
                    m.phase = .inside(since: enteredAt)
                    next.append(m)
                } else if dwell == 0, let prev, let from, margin(fence) > 0,
                    let f = Self.deepPoint(fence, from: from, to: p, margin: margin(fence))
                {
                    // Out, back in deeper than the margin, and out again (a
                    // road leaving a zone and cutting back through a bend of
                    // it), between a fix beyond the margin (or one inside
                    // that the gate held) and this one: the exit is
                    // confirmed, and the pass is a crossed pair.
                    var (entered, left) = Self.passTimes(
                        fence, from: prev, to: p, at: fix.time, deep: f)
                    if fence.contains(from) { entered = prev.time }
                    alert(.geofenceExit, m.fence, at: since, duration: since - enteredAt)
                    alerts.append(
                        Alert(
                            type: .geofenceEnter, device: fix.device, time: max(entered, since),
                            fence: m.fence, lat: fix.lat, lon: fix.lon, crossed: true))
                    alerts.append(
                        Alert(
                            type: .geofenceExit, device: fix.device, time: max(left, since),
                            fence: m.fence, lat: fix.lat, lon: fix.lon,
                            durationS: Double(max(left, since) - max(entered, since)) / 1000,
                            crossed: true))
                } else if fixes + 1 >= settings.exitConfirmFixes && fix.time - since >= dwell {
                    alert(.geofenceExit, m.fence, at: since, duration: since - enteredAt)
                } else {
                    m.phase = .exiting(enteredAt: enteredAt, since: since, fixes: fixes + 1)
                    next.append(m)
                }
            }
        }
        enter(below: .max)
        // Fences cut between the last position and this one.
        if let prev, via == nil {
            let held = heldRanks
            let facts = self.facts
            let kept = crossings(
                from: prev, to: p, fix: fix,
                member: { i in
                    let r = facts[Int(i)].rank
                    return Self.sortedContains(ranks, r) || Self.sortedContains(held, r)
                }, alerts: &alerts)
            if !kept.isEmpty {
                next += kept
                next.sort { $0.rank.value < $1.rank.value }
            }
        }
        // In place: the state's own array storage is reused.
        st.fences.removeAll(keepingCapacity: true)
        st.fences.append(contentsOf: next)
        st.ranksEpoch = RankHint(epoch)
    }

    /// `overspeed_start` once the speed has been over `limit` for
    /// `overspeedMinS` (dated from the first fix over), `overspeed_end` once
    /// it has been back at or under it as long (dated from the first fix under,
    /// with the maximum and the duration). A limit of 0 means none.
    private func overspeed(
        _ fix: Fix, speed: Double, limit: Double, state st: inout DeviceState, alerts: inout [Alert]
    ) {
        let minMs = Int64((settings.overspeedMinS * 1000).rounded())
        if limit > 0, speed > limit {
            var e =
                st.overspeed ?? OverspeedEpisode(since: fix.time, maxKmh: speed, limitKmh: limit)
            e.maxKmh = max(e.maxKmh, speed)
            e.underSince = nil
            if !e.announced, fix.time - e.since >= minMs {
                e.announced = true
                alerts.append(
                    Alert(
                        type: .overspeedStart, device: fix.device, time: e.since, fence: nil,
                        lat: fix.lat, lon: fix.lon,
                        details: [
                            AlertDetail("speed_kmh", e.maxKmh),
                            AlertDetail("limit_kmh", e.limitKmh),
                        ]))
            }
            st.overspeed = e
        } else if var e = st.overspeed {
            guard e.announced else {
                st.overspeed = nil  // too short to count
                return
            }
            let under = e.underSince ?? fix.time
            if fix.time - under >= minMs {
                alerts.append(
                    Alert(
                        type: .overspeedEnd, device: fix.device, time: under, fence: nil,
                        lat: fix.lat, lon: fix.lon,
                        details: [
                            AlertDetail("max_speed_kmh", e.maxKmh),
                            AlertDetail("duration_s", Double(under - e.since) / 1000),
                            AlertDetail("limit_kmh", e.limitKmh),
                        ]))
                st.overspeed = nil
            } else {
                e.underSince = under
                st.overspeed = e
            }
        }
    }

    /// Trip detection by displacement (see `TripPhase`); `speed` is the
    /// span's average when a `SpeedWindow` span ended at this fix, else 0.
    private func advanceTrip(
        _ fix: Fix, here: Waypoint, prev: Waypoint?, gap: Bool, speed: Double,
        state st: inout DeviceState, alerts: inout [Alert], trips: inout [Trip]
    ) {
        let ignitionOff = settings.ignitionEndsTrip && fix.ignition == false
        let startM = settings.tripStartDistanceM
        switch st.trip {
        case nil:
            st.trip = .parked(anchor: here, lastNear: here)
        case .parked(let anchor, let near):
            if gap || ignitionOff {
                st.trip = .parked(anchor: here, lastNear: here)
            } else if anchor.distance(lat: here.lat, lon: here.lon) > startM,
                st.motion?.isStill != true
            {
                // Far enough, and the odometer gate agrees it is moving (one
                // fix scattered 200 m away, an outlier, starts no trip).
                let start = Waypoint(
                    time: near.time, lat: anchor.lat, lon: anchor.lon, odometerM: anchor.odometerM,
                    fixNo: near.fixNo)
                var details: [AlertDetail] = []
                if let f = fenceNames(lat: start.lat, lon: start.lon) {
                    details.append(AlertDetail("start_fence", f))
                }
                alerts.append(
                    Alert(
                        type: .tripStart, device: fix.device, time: start.time, fence: nil,
                        lat: start.lat, lon: start.lon, details: details))
                st.trip = .driving(start: start, candidate: here, maxSpeedKmh: speed)
            } else if anchor.distance(lat: here.lat, lon: here.lon) <= settings.stillRadiusM {
                st.trip = .parked(anchor: anchor, lastNear: here)
            }
        case .driving(let start, let candidate, let maxKmh):
            if gap, let prev {
                finish(
                    fix.device, start: start, end: prev, maxKmh: maxKmh, alerts: &alerts,
                    trips: &trips)
                st.trip = .parked(anchor: here, lastNear: here)
            } else if ignitionOff {
                finish(
                    fix.device, start: start, end: here, maxKmh: max(maxKmh, speed),
                    alerts: &alerts,
                    trips: &trips)
                st.trip = .parked(anchor: here, lastNear: here)
            } else if candidate.distance(lat: here.lat, lon: here.lon) > startM {
                st.trip = .driving(start: start, candidate: here, maxSpeedKmh: max(maxKmh, speed))
            } else if Double(here.time - candidate.time) >= settings.tripStopDurationS * 1000 {
                // Arrived: where the odometer gate says it came to rest, else here.
                var end = here
                if let m = st.motion, m.isStill, m.rest.fixNo >= start.fixNo,
                    m.rest.time > start.time
                {
                    end = m.rest
                }
                finish(
                    fix.device, start: start, end: end, maxKmh: max(maxKmh, speed), alerts: &alerts,
                    trips: &trips)
                st.trip = .parked(anchor: end, lastNear: here)
            } else {
                st.trip = .driving(
                    start: start, candidate: candidate, maxSpeedKmh: max(maxKmh, speed))
            }
        }
    }

    private func finish(
        _ device: String, start: Waypoint, end: Waypoint, maxKmh: Double, alerts: inout [Alert],
        trips: inout [Trip]
    ) {
        var trip = Trip(
            device: device, start: start, end: end,
            startFence: fenceNames(lat: start.lat, lon: start.lon),
            endFence: fenceNames(lat: end.lat, lon: end.lon), maxSpeedKmh: maxKmh)
        // The average is never above the maximum (a trip shorter than one
        // span, or speeds reported low).
        if trip.durationS > 0 {
            trip.maxSpeedKmh = max(trip.maxSpeedKmh, trip.distanceM / trip.durationS * 3.6)
        }
        trip.startFenceId = fenceIds(lat: start.lat, lon: start.lon)
        trip.endFenceId = fenceIds(lat: end.lat, lon: end.lon)
        trips.append(trip)
        var details = [
            AlertDetail("distance_m", (trip.distanceM * 10).rounded() / 10),
            AlertDetail("duration_s", trip.durationS),
            AlertDetail("max_speed_kmh", (trip.maxSpeedKmh * 10).rounded() / 10),
        ]
        if let f = trip.startFence { details.append(AlertDetail("start_fence", f)) }
        if let f = trip.endFence { details.append(AlertDetail("end_fence", f)) }
        alerts.append(
            Alert(
                type: .tripEnd, device: device, time: end.time, fence: nil, lat: end.lat,
                lon: end.lon, details: details))
    }

    /// `device_silent` for a device not heard from since `lastHeardMs`
    /// (wall clock, from the daemon's timer): the alert, dated `nowMs`, and the
    /// state marked silent so that the next fix raises `device_back`.
    public static func silence(
        _ state: DeviceState, device: String, lastHeardMs: Int64, nowMs: Int64
    )
        -> (Alert, DeviceState)
    {
        var st = state
        st.silent = true
        var details = [AlertDetail("silent_s", Double(nowMs - lastHeardMs) / 1000)]
        details.append(AlertDetail("last_fix_ms", Double(state.lastTime)))
        let alert = Alert(
            type: .deviceSilent, device: device, time: nowMs, fence: nil,
            lat: state.lat.isNaN ? 0 : state.lat, lon: state.lon.isNaN ? 0 : state.lon,
            details: details)
        return (alert, st)
    }

    /// True when `p` (outside the fence) is more than the fence's margin from it.
    private func beyondMargin(_ fence: Fence, _ p: Coordinate) -> Bool {
        let m = margin(fence)
        return m <= 0 || !fence.boundary(within: m, of: p)
    }

    /// The accuracy `fix` reports, metres (68 % radius): its accuracy, else
    /// its HDOP × `hdopAccuracyM`; nil when it reports neither.
    func reportedAccuracy(_ fix: Fix) -> Double? {
        settings.reportedAccuracy(accuracyM: fix.accuracyM, hdop: fix.extra?.hdop)
    }

    /// The radius, metres, within which `fix` may really be, for the
    /// accuracy gate: its accuracy, else its HDOP × `hdopAccuracyM`, times
    /// `accuracyGateFactor`; 0 when
    /// it reports neither or the gate is off.
    func uncertainty(_ fix: Fix) -> Double {
        guard settings.accuracyGate, let a = reportedAccuracy(fix) else { return 0 }
        return a * settings.accuracyGateFactor
    }
}
