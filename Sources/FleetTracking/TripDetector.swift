import FleetGeo
import FleetModel

/// Trips by displacement (see `TripPhase`): a trip starts once the vehicle
/// is `tripStartDistanceM` from where it stood and the odometer gate agrees
/// it moves; it ends after `tripStopDurationS` within that distance of one
/// place (at the rest the gate found), at a gap longer than `tripGapS`, or,
/// with `ignitionEndsTrip`, when the ignition goes off. Trips name the
/// fences they start and end in (`fences`).
struct TripDetector: Sendable {
    let settings: TrackerSettings
    let fences: FenceIndex

    /// Trip detection by displacement (see `TripPhase`); `speed` is the
    /// span's average when a `SpeedWindow` span ended at this fix, else 0.
    func advance(
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
                if let f = fences.names(lat: start.lat, lon: start.lon) {
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
        let from = fences.namesAndIds(lat: start.lat, lon: start.lon)
        let to = fences.namesAndIds(lat: end.lat, lon: end.lon)
        var trip = Trip(
            device: device, start: start, end: end, startFence: from.names, endFence: to.names,
            maxSpeedKmh: maxKmh)
        // The average is never above the maximum (a trip shorter than one
        // span, or speeds reported low).
        if trip.durationS > 0 {
            trip.maxSpeedKmh = max(trip.maxSpeedKmh, trip.distanceM / trip.durationS * 3.6)
        }
        trip.startFenceId = from.ids
        trip.endFenceId = to.ids
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

}
