import FleetGeo
import FleetModel

/// The jump filter: a fix implying more than `jumpSpeedKmh` from the last
/// accepted one, or lying beyond the reach of the speed it reports
/// (`jumpDecelerationMps2`), is held as a suspect; once `jumpConfirmFixes`
/// suspects among the last `jumpWindowFixes` valid fixes agree with one
/// another, the vehicle is moved there (the path through them counts; the
/// jump does not), so one real jump never locks a device out.
struct JumpFilter: Sendable {
    let settings: TrackerSettings

    /// What the filter makes of one valid fix.
    enum Verdict: Equatable {
        /// Not a jump: accepted from the last position.
        case pass
        /// A jump confirmed by these earlier suspects (oldest first): the
        /// vehicle is moved through them to the fix.
        case relocate(via: [Suspect])
        /// A jump suspect, held in the state.
        case hold
    }

    /// Judges `fix` (valid; `st.seq` already counts it) against the last
    /// accepted position and the suspects held in `st`, which it updates.
    func screen(_ fix: Fix, state st: inout DeviceState) -> Verdict {
        guard let last = st.lastWaypoint, isJump(from: (last.time, last.lat, last.lon), to: fix)
        else { return .pass }
        let n = Int64(max(1, settings.jumpWindowFixes))
        let seq = st.seq
        st.suspects.removeAll { $0.seq <= seq - n }
        // Suspects agree by the speed bound alone: a device whose
        // reported speeds are wrong (0 while driving) is moved, not locked out.
        let agreeing = st.suspects.filter {
            !isJump(from: ($0.time, $0.lat, $0.lon), to: fix, reach: false)
        }
        if agreeing.count + 1 >= settings.jumpConfirmFixes {
            st.suspects = []
            return .relocate(via: agreeing)
        }
        st.suspects.append(Suspect(time: fix.time, lat: fix.lat, lon: fix.lon, seq: st.seq))
        if st.suspects.count >= n {
            st.suspects.removeFirst(st.suspects.count - Int(n) + 1)
        }
        return .hold
    }

    /// The filter's two tests of `fix` against the last accepted position
    /// (or, with `reach` false, only the first, against an earlier suspect
    /// it may agree with): it implies more than `jumpSpeedKmh` after
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
    func isJump(
        from last: (time: Int64, lat: Double, lon: Double), to fix: Fix, reach: Bool = true
    ) -> Bool {
        guard settings.jumpSpeedKmh > 0 else { return false }
        let d = Geodesic.distance(lat1: last.lat, lon1: last.lon, lat2: fix.lat, lon2: fix.lon)
        let dt = Double(max(1, fix.time - last.time)) / 1000
        if max(0, d - settings.jumpAllowanceM) / dt * 3.6 > settings.jumpSpeedKmh { return true }
        let decel = settings.jumpDecelerationMps2
        guard reach, decel > 0, let kmh = fix.speedKmh, kmh >= 0, kmh.isFinite,
            let u = settings.reportedAccuracy(accuracyM: fix.accuracyM, hdop: fix.extra?.hdop)
        else { return false }
        let allowance = min(settings.jumpAllowanceM, max(25, 6 * u))
        return d > kmh / 3.6 * dt + decel * dt * dt / 2 + allowance
    }
}
