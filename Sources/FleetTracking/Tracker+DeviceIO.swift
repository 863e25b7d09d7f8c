import FleetModel

/// What a device's own inputs say, beside its position: ignition changes,
/// idling and the alarms it raises (`AlertType.ignitionOn` …
/// `AlertType.deviceAlarm`).
extension Tracker {
    /// Ignition changes and device alarms carried by `fix` (valid or not: a
    /// unit without a GNSS fix still reports its ignition), and the end of
    /// an idling that the ignition going off ends. A device that has never
    /// reported ignition raises nothing on its first report: only changes.
    /// Alerts are placed at the fix, or at the last known position when the
    /// fix has none.
    func deviceInputs(_ fix: Fix, state st: inout DeviceState, alerts: inout [Alert]) {
        let (lat, lon) = place(fix, st)
        if let on = fix.ignition, on != st.ignition {
            if st.ignition != nil {
                alerts.append(
                    Alert(
                        type: on ? .ignitionOn : .ignitionOff, device: fix.device, time: fix.time,
                        fence: nil, lat: lat, lon: lon))
            }
            st.ignition = on
            st.ignitionSince = fix.time
            if !on { endIdle(fix, at: fix.time, lat: lat, lon: lon, state: &st, alerts: &alerts) }
        }
        if let key = fix.extra?.driver { st.driver = key.isEmpty ? nil : key }
        if let kind = fix.extra?.alarm {
            alerts.append(
                Alert(
                    type: .deviceAlarm, device: fix.device, time: fix.time, fence: nil, lat: lat,
                    lon: lon, details: [AlertDetail("alarm", kind)]))
        }
    }

    /// Idling, after an accepted fix has moved the odometer gate: ignition
    /// on and the gate calling the vehicle parked since `rest`. It begins at
    /// the later of the two, is announced (`idle_start`, dated then) once it
    /// has lasted `idleAfterS`, and ends (`idle_end`) at the last fix still
    /// standing when the vehicle moves (`departed`: where and when it left,
    /// for a departure the gate held a fix to confirm).
    func idling(
        _ fix: Fix, prev: Waypoint?, departed: Waypoint?, state st: inout DeviceState,
        alerts: inout [Alert]
    ) {
        guard settings.idleAfterS > 0 else {
            st.idle = nil
            return
        }
        guard st.ignition == true, case .still(_, _, _, let rest, _)? = st.motion else {
            let left = departed ?? prev
            endIdle(
                fix, at: left?.time ?? fix.time, lat: left?.lat ?? fix.lat,
                lon: left?.lon ?? fix.lon, state: &st, alerts: &alerts)
            return
        }
        var e = st.idle ?? IdleEpisode(since: max(rest.time, st.ignitionSince))
        if !e.announced, Double(fix.time - e.since) >= settings.idleAfterS * 1000 {
            e.announced = true
            alerts.append(
                Alert(
                    type: .idleStart, device: fix.device, time: e.since, fence: nil, lat: st.lat,
                    lon: st.lon))
        }
        st.idle = e
    }

    /// Ends the current idling at `end` (Unix ms), placed at `lat`, `lon`:
    /// `idle_end` with its duration when `idle_start` was raised.
    private func endIdle(
        _ fix: Fix, at end: Int64, lat: Double, lon: Double, state st: inout DeviceState,
        alerts: inout [Alert]
    ) {
        guard let e = st.idle else { return }
        st.idle = nil
        guard e.announced else { return }
        alerts.append(
            Alert(
                type: .idleEnd, device: fix.device, time: max(end, e.since), fence: nil, lat: lat,
                lon: lon, durationS: Double(max(0, end - e.since)) / 1000))
    }

    /// Where an alert of `fix` is placed: the fix, else the last position (0, 0 before any).
    private func place(_ fix: Fix, _ st: DeviceState) -> (Double, Double) {
        if fix.valid { return (fix.lat, fix.lon) }
        return st.lat.isNaN ? (0, 0) : (st.lat, st.lon)
    }
}
