import FleetGeo
import FleetModel
import Synchronization

/// Geofence entries and exits for one tracker's fences.
///
/// A fence containing the fix is entered (after its dwell, the alert dated
/// when the stay began; an entry no deeper than the margin only after
/// `shallowVisitS` inside); a device inside exits only once it is more than
/// the fence's margin outside the boundary (hysteresis) for
/// `exitConfirmFixes` fixes in a row and its dwell; the exit says how long
/// the device was inside. Entries and exits are dated where the way from
/// the previous fix crossed the boundary (`CrossingGeometry.crossingTime`),
/// else at the fix (for an exit, the first beyond the margin). When two
/// consecutive fixes are both outside a fence but the straight segment
/// between them passes through it, an enter and an exit are raised, flagged
/// `crossed` (fences with a dwell are exempt: a pass-through cannot satisfy
/// it), when the segment goes deeper inside than the fence's margin
/// (grazing an edge is scatter or a chord across a bend, not a pass).
/// A fix whose reported accuracy puts a boundary within reach changes
/// nothing about that fence (the accuracy gate, `accuracyGate`).
///
/// Pure: the memberships live in the device's state; the detector keeps
/// only its fences' tables and per-fix scratch buffers.
struct FenceDetector: Sendable {
    let index: FenceIndex
    let settings: TrackerSettings
    /// For each fence index, the rank of its id among the distinct ids in
    /// ascending order (the order memberships are kept in); `idByRank` the
    /// reverse, `rankById` the look-up by id. Fences sharing an id are one
    /// fence to the tracker (memberships are kept by id): the last of them
    /// (`indexByRank`) stands for it. Lets fixes be checked against
    /// memberships by merging sorted ranks, with no sets and almost no
    /// hashing.
    let idByRank: [String]
    let rankById: [String: Int32]
    let indexByRank: [Int32]
    /// Per-fix scratch, kept between fixes so the hot path allocates
    /// nothing: the containing fences, their ranks, the memberships' ranks
    /// and indices, and the memberships being built.
    var scratch: [Int32] = []
    var ranks: [Int32] = []
    var heldRanks: [Int32] = []
    var heldAt: [Int] = []
    var building: [FenceMembership] = []
    /// Per fence index, what every fix reads of the fences containing it,
    /// in one place (one cache line per fence, not one per table): its id's
    /// rank, its dwell (ms) and its speed limit (0: none). `hasLimits`: some
    /// fence has a limit (else the fix's limit is the default, unread).
    let facts: [Facts]
    let hasLimits: Bool
    struct Facts {
        var rank: Int32
        var dwellMs: Int64
        var limitKmh: Double
    }
    /// This detector's generation: memberships written by it carry their
    /// fences' ranks (`RankHint`), trusted only by the same generation (a
    /// reload makes a new tracker, with new ranks).
    let epoch: UInt32
    private static let generations = Atomic<UInt32>(0)

    init(fences: FenceIndex, settings: TrackerSettings) {
        self.index = fences
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

    /// The name of the fence with id `id`, if these fences have it.
    func name(id: String) -> String? {
        guard let r = rankById[id] else { return nil }
        return index.fences[Int(indexByRank[Int(r)])].name
    }

    /// How one accepted fix is to be judged, as the tracker's odometer
    /// stage found it.
    struct Judgement {
        /// Where the fences are judged: the fix, or a parked vehicle's mean.
        var at: Coordinate
        /// How many independent fixes `at` stands for (1: the fix; more
        /// for a parked mean): the accuracy gate's radius is the fix's
        /// (`uncertainty`) divided by its square root.
        var independent: Double
        /// The time a fence entered now is entered since: the fix's, or
        /// when a parked vehicle came to rest (`parked`).
        var enteredAt: Int64
        /// Judged on a parked vehicle's mean (`Motion.still`).
        var parked: Bool
        /// Where and since when the vehicle stood before this fix (not
        /// parked now): a fence entered that encloses it was entered then.
        var standing: (at: Coordinate, since: Int64)?
        /// The last accepted position (nil: none).
        var prev: Waypoint?
        /// The way from `prev` is one driven: crossings are inferred on it.
        var crossable: Bool
        /// The jump filter moved the vehicle: no way from `prev`.
        var relocated: Bool
        /// A departure confirmed now: the way from the parked place to the
        /// fix the odometer gate held.
        var firstLeg: (from: Waypoint, to: Waypoint)?
    }

    /// Advances the device's memberships (`st.fences`) by one accepted fix
    /// and appends the fence alerts; returns the speed limit there (km/h,
    /// the lowest of the containing fences', else `speedLimitKmh`; 0: none).
    /// `containing`, when given, is the index's answer for the fix's
    /// position (used unless the vehicle is judged on its parked mean).
    mutating func judge(
        _ fix: Fix, _ j: Judgement, containing: UnsafeBufferPointer<Int32>?,
        state st: inout DeviceState, alerts: inout [Alert]
    ) -> Double {
        let p = j.at
        if let containing, !j.parked {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: containing)
        } else {
            index.containing(p, into: &scratch)
        }
        // Confirmed a departure: the first leg (parked place to the held
        // fix) is a way driven too; crossings on it, dated on it. A fence
        // the parked place lies in is no pass: the vehicle stood inside it,
        // and whether it left was judged on the fixes (the held one among
        // them, which may have raised its exit already).
        if j.crossable, !j.relocated, let leg = j.firstLeg {
            var end = fix
            end.time = leg.to.time
            end.lat = leg.to.lat
            end.lon = leg.to.lon
            let held = st.fences
            let index = self.index
            let start = Coordinate(lat: leg.from.lat, lon: leg.from.lon)
            let kept = crossings(
                from: leg.from, to: Coordinate(lat: leg.to.lat, lon: leg.to.lon), fix: end,
                member: { i in
                    let fence = index.fences[Int(i)]
                    return held.contains { $0.fence == fence.id } || fence.contains(start)
                },
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
        // Ranks cached by this detector are compared as they are; otherwise
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
            if let prev = j.prev, !j.relocated, j.crossable {
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
                fix, at: p, uncertain: uncertainty(fix) / j.independent.squareRoot(),
                enteredAt: j.enteredAt,
                standing: j.parked ? nil : j.standing, prev: j.crossable ? j.prev : nil,
                relocated: j.relocated, state: &st, alerts: &alerts)
        }
        return limit
    }

    /// The radius, metres, within which `fix` may really be, for the
    /// accuracy gate: its accuracy, else its HDOP × `hdopAccuracyM`, times
    /// `accuracyGateFactor`; 0 when it reports neither or the gate is off.
    func uncertainty(_ fix: Fix) -> Double {
        guard settings.accuracyGate,
            let a = settings.reportedAccuracy(accuracyM: fix.accuracyM, hdop: fix.extra?.hdop)
        else { return 0 }
        return a * settings.accuracyGateFactor
    }

    func margin(_ f: Fence) -> Double { f.marginM ?? settings.marginM }

    /// The entry hysteresis (`TrackerSettings.shallowVisitS`): true when a
    /// device at `p`, inside `fence` for `inside` ms, has entered it for
    /// good: deeper than the fence's margin, or inside long enough.
    func deepEnough(_ fence: Fence, _ p: Coordinate, inside: Int64) -> Bool {
        let m = margin(fence)
        guard settings.shallowVisitS > 0, m > 0 else { return true }
        return Double(inside) >= settings.shallowVisitS * 1000 || !fence.boundary(within: m, of: p)
    }

    /// True when `p` (outside the fence) is more than the fence's margin from it.
    func beyondMargin(_ fence: Fence, _ p: Coordinate) -> Bool {
        let m = margin(fence)
        return m <= 0 || !fence.boundary(within: m, of: p)
    }

    static func sortedContains(_ a: [Int32], _ v: Int32) -> Bool {
        var lo = 0
        var hi = a.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if a[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        return lo < a.count && a[lo] == v
    }
}
