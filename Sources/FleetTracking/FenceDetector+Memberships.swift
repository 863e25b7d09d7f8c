import FleetGeo
import FleetModel

extension FenceDetector {
    /// Enter and exit pairs (flagged `crossed`) for the fences the segment
    /// from the last position to this fix passes through while both ends are
    /// outside. Fences the device is in or tracked in (`member`), and fences
    /// with a dwell, cannot be crossed: they are skipped before the exact test.
    /// When the segment ends within a fence's margin outside it, only the
    /// enter is raised: the device is inside by the hysteresis, as if a fix
    /// had been taken inside, and leaves by the usual rule; its membership
    /// is returned for the caller to keep.
    func crossings(
        from prev: Waypoint, to p: Coordinate, fix: Fix, member: (Int32) -> Bool,
        alerts: inout [Alert]
    ) -> [FenceMembership] {
        var kept: [FenceMembership] = []
        let from = Coordinate(lat: prev.lat, lon: prev.lon)
        // Every fence containing `p` is a member, so the index need not find the ends'.
        let cut = index.touched(from: from, to: p, endsExcluded: true) { i in
            member(i) || facts[Int(i)].dwellMs != 0
        }
        for i in cut {
            let fence = index.fences[Int(i)]
            // A segment that only grazes the fence is scatter around its
            // edge or a chord across a bend, not a pass: some point of it
            // (of 15 evenly spaced) must lie inside farther than the fence's
            // margin from the boundary.
            let m = margin(fence)
            let deep = CrossingGeometry.deepPoint(fence, from: from, to: p, margin: m)
            if m > 0, deep == nil { continue }
            let (entered, left) = CrossingGeometry.passTimes(
                fence, from: prev, to: p, at: fix.time, deep: deep)
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
    mutating func memberships(
        _ fix: Fix, at p: Coordinate, uncertain: Double, enteredAt: Int64,
        standing: (at: Coordinate, since: Int64)? = nil, prev: Waypoint?,
        relocated: Bool, state st: inout DeviceState, alerts: inout [Alert]
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
            return CrossingGeometry.passesDeep(fence, from: from, to: p, margin: m)
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
                let t = CrossingGeometry.crossingTime(
                    fence, from: from, at: prev.time, to: p, at: fix.time)
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
                let fence = self.index.fences[index]
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
                    let t = CrossingGeometry.crossingTime(
                        fence, from: from, at: prev.time, to: p, at: fix.time)
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
            // Inside and still inside (the usual case): kept as it is, its
            // fence not looked at (whatever the gate below would say, it
            // would keep it too).
            if inside, case .inside = m.phase {
                next.append(m)
                continue
            }
            let index = Int(indexByRank[Int(r)])
            // The accuracy gate: a fix that may be on either side of this
            // fence's boundary changes nothing about it (no exit, no step
            // towards one, no return from one, no end of a dwell), unless
            // it confirms an entry by a way driven deeper than the margin.
            if uncertain > 0, self.index.fences[index].boundary(within: uncertain, of: p) {
                var deepWay = false
                if case .entering = m.phase { deepWay = passedDeep(self.index.fences[index]) }
                if !deepWay {
                    next.append(m)
                    continue
                }
            }
            let dwell = facts[index].dwellMs
            switch m.phase {
            case .entering(let since):
                let fence = self.index.fences[index]
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
                    &m, since: since, fence: self.index.fences[index], inside: inside, dwell: dwell)
            case .exiting(let enteredAt, let since, let fixes):
                let fence = self.index.fences[index]
                if inside || !beyondMargin(fence, p) {
                    m.phase = .inside(since: enteredAt)
                    next.append(m)
                } else if dwell == 0, let prev, let from, margin(fence) > 0,
                    let f = CrossingGeometry.deepPoint(
                        fence, from: from, to: p, margin: margin(fence))
                {
                    // Out, back in deeper than the margin, and out again (a
                    // road leaving a zone and cutting back through a bend of
                    // it), between a fix beyond the margin (or one inside
                    // that the gate held) and this one: the exit is
                    // confirmed, and the pass is a crossed pair.
                    var (entered, left) = CrossingGeometry.passTimes(
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
        if let prev, !relocated {
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

}
