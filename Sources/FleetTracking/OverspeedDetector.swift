import FleetModel

/// Overspeed: `overspeed_start` once the speed has been over the limit for
/// `overspeedMinS` (dated from the first fix over), `overspeed_end` once
/// it has been back at or under it as long (dated from the first fix
/// under, with the maximum and the duration). The limit is the lowest
/// `speed_limit_kmh` of the fences containing the fix, else
/// `speedLimitKmh`; 0 means none.
struct OverspeedDetector: Sendable {
    /// `overspeedMinS` in milliseconds.
    let minMs: Int64

    init(settings: TrackerSettings) {
        self.minMs = Int64((settings.overspeedMinS * 1000).rounded())
    }

    /// Advances the device's episode (`st.overspeed`) by one accepted fix
    /// at `speed` km/h under `limit` km/h (0: none).
    func advance(
        _ fix: Fix, speed: Double, limit: Double, state st: inout DeviceState, alerts: inout [Alert]
    ) {
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
}
