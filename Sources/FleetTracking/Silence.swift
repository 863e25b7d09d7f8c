import FleetModel

/// Silence: a device not heard from for `[tracking] silent_after_s` (judged
/// by the daemon on its own clock, `TrackingStage`) raises
/// `device_silent`; its next fix raises `device_back` (`Tracker`).
public enum Silence {
    /// `device_silent` for a device not heard from since `lastHeardMs`
    /// (wall clock, from the daemon's timer): the alert, dated `nowMs`, and
    /// the state marked silent so that the next fix raises `device_back`.
    public static func raise(
        _ state: DeviceState, device: String, lastHeardMs: Int64, nowMs: Int64
    ) -> (Alert, DeviceState) {
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
}
