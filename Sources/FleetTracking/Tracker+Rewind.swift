import FleetModel

extension Tracker {
    /// Processes `fix` as `process(_:state:containing:)` does, keeping
    /// `rewind` (see `Rewind`) so that a fix older than the newest tracked
    /// is tracked in its place when it is at most `reorderWindowS` older
    /// than the newest and the device keeps a rewind (for an hour after its
    /// last fix out of order within the window; the first is late), or when
    /// it fills a gap in fix times that a newer fix ended (a backlog sent
    /// newest first). Such a fix is tracked by
    /// replaying the fixes after it from the state before it; the outcome
    /// carries what the replay raised that was not raised before (at most as
    /// many alerts of each type and fence as the replay gives, so nothing is
    /// raised twice; those already raised keep their first times), and its
    /// disposition is the one the replay gave it. Other late fixes are late,
    /// as before. `reorderWindowS` 0: no rewind at all.
    ///
    /// Cost: none for a device without a rewind; with one, an in-order fix
    /// appends itself to it, and about once a window the state is copied;
    /// a fix put in place replays the fixes kept (at most about two
    /// windows' worth, or `Rewind.holdFixes` in a gap).
    public mutating func process(
        _ fix: Fix, state: inout DeviceState?, rewind: inout Rewind?,
        containing: UnsafeBufferPointer<Int32>? = nil
    ) -> Outcome {
        let windowMs = Int64((settings.reorderWindowS * 1000).rounded())
        guard windowMs > 0 else { return process(fix, state: &state, containing: containing) }
        if let last = state?.lastTime, fix.time <= last {
            if fix.time == last { return Outcome(disposition: .duplicate, alerts: [], state: nil) }
            return place(fix, newest: last, windowMs: windowMs, state: &state, rewind: &rewind)
        }
        // In order: open, keep or drop the rewind, and move its base on
        // when its time has come.
        let last = state?.lastTime
        let gapMs = Int64((settings.backlogAfterS * 1000).rounded())
        // `last == nil`, not `state == nil`: the state is Equatable, and
        // comparing it with nil copied it whole (every fix).
        if last == nil, gapMs > 0, fix.valid {
            // Never heard before: its buffer may follow (`Rewind.opening`).
            let outcome = process(fix, state: &state, containing: containing)
            rewind = .opening(first: fix)
            return outcome
        }
        if rewind?.fresh == true {
            rewind = nil  // its next fix is in order: no buffer behind the first
        }
        let reordering = rewind?.reorderUntil.map { fix.time <= $0 } ?? false
        if let last, gapMs > 0, fix.time - last > gapMs {
            rewind = Rewind(base: state, reorderUntil: rewind?.reorderUntil)
            rewind!.holdUntil = fix.time + Rewind.holdMs  // a gap: held open for a backlog
        } else if rewind == nil {
            return process(fix, state: &state, containing: containing)
        } else if let until = rewind!.holdUntil {
            if fix.time > until || rewind!.fixes.count >= Rewind.holdFixes {
                if reordering {
                    rewind = Rewind(base: state, reorderUntil: rewind!.reorderUntil)
                } else {
                    rewind = nil
                    return process(fix, state: &state, containing: containing)
                }
            }
        } else if !reordering {
            rewind = nil  // no late fix for a while: keep nothing
            return process(fix, state: &state, containing: containing)
        } else if rewind!.mark == nil {
            if rewind!.base.map({ fix.time - $0.lastTime >= windowMs }) ?? true {
                rewind!.mark = state
                rewind!.markAt = rewind!.fixes.count
            }
        } else if let m = rewind!.mark?.lastTime, fix.time - m >= windowMs {
            rewind!.advance()
            rewind!.mark = state
            rewind!.markAt = rewind!.fixes.count
        }
        let outcome = process(fix, state: &state, containing: containing)
        rewind!.note(fix, outcome)
        return outcome
    }

    /// A fix older than the newest tracked (`newest`): put in its place
    /// when the rewind reaches it, else late.
    private mutating func place(
        _ fix: Fix, newest: Int64, windowMs: Int64, state: inout DeviceState?,
        rewind: inout Rewind?
    ) -> Outcome {
        let late = Outcome(disposition: .late, alerts: [], state: nil)
        // A device marked silent since (by the daemon's clock, outside the
        // fixes) is not rewound: its next fix in order raises `device_back`.
        guard let reach = rewind, state?.silent != true, fix.time > reach.floor,
            newest - fix.time <= windowMs || reach.holdUntil != nil,
            reach.fixes.count < 2 * Rewind.holdFixes
        else {
            // Within the window but out of reach: this device's datagrams
            // get reordered; keep its recent fixes from now on, for a while.
            if newest - fix.time <= windowMs, state?.silent != true {
                if rewind == nil { rewind = Rewind(base: state) }
                rewind!.reorderUntil = newest + Rewind.reorderKeepMs
            }
            return late
        }
        // Reordered: keep its recent fixes a while longer.
        let keep = newest + Rewind.reorderKeepMs
        var r = reach
        if r.fresh {
            // What the first fix raised, found again (the tracker is deterministic).
            let first = r.fixes[0]
            var s: DeviceState?
            r.fixes = []
            r.raised = []
            r.note(first, process(first, state: &s))
            r.fresh = false
        }
        r.reorderUntil = max(r.reorderUntil ?? keep, keep)
        rewind = nil  // `r` holds the only reference: no copy of its arrays
        defer { rewind = r }
        let at = r.fixes.firstIndex { $0.time >= fix.time } ?? r.fixes.count
        if at < r.fixes.count, r.fixes[at].time == fix.time {
            return Outcome(disposition: .duplicate, alerts: [], state: nil)
        }
        r.fixes.insert(fix, at: at)
        // Already raised, as a pool the replay draws from.
        var pool = r.raised
        for i in pool.indices where pool[i].at >= at { pool[i].at += 1 }
        var raised: [Rewind.Raised] = []
        var outcome = late
        let markAt = r.mark == nil ? nil : r.markAt + (at < r.markAt ? 1 : 0)
        var s = r.base
        for (i, f) in r.fixes.enumerated() {
            if i == markAt { r.mark = s }
            let o = process(f, state: &s)
            if i == at { outcome.disposition = o.disposition }
            if i >= at { outcome.confirmed += o.confirmed }
            for a in o.alerts {
                if let k = pool.firstIndex(where: { $0.type == a.type && $0.fence == a.fence }) {
                    var e = pool.remove(at: k)
                    e.at = i
                    raised.append(e)
                } else {
                    raised.append(Rewind.Raised(at: i, type: a.type, fence: a.fence, time: a.time))
                    outcome.alerts.append(a)
                }
            }
            for t in o.trips {
                let k =
                    pool.firstIndex { $0.type == nil && $0.time == t.start.time }
                    ?? pool.firstIndex { $0.type == nil && $0.at >= at }
                if let k {
                    var e = pool.remove(at: k)
                    e.at = i
                    raised.append(e)
                } else {
                    raised.append(Rewind.Raised(at: i, type: nil, time: t.start.time))
                    outcome.trips.append(t)
                }
            }
        }
        if let markAt { r.markAt = markAt }
        r.raised = raised + pool
        state = s
        return outcome
    }
}
