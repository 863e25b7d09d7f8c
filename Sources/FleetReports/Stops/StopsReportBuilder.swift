import FleetStorage

/// Makes a `StopsReport` from stored trips, idling episodes and last fixes:
/// pure (no store, no clock), so that it is tested on values. The rules
/// are `StopsReport`'s.
public enum StopsReportBuilder {
    /// The report of stops starting in `[fromMs, toMs)` made at `nowMs`.
    /// - `trips`: the devices' trips from `fromMs` on (any order; those
    ///   ending before `fromMs` are ignored), the trip after each stop
    ///   included where there is one;
    /// - `idle`: the devices' `idle_start`/`idle_end` events (any order);
    /// - `lastFixMs`: each device's last fix, for stops not over;
    /// - `minS`: the shortest stop listed, seconds (≥ 0).
    public static func make(
        trips: [TripRecord], idle: [UsageEvent], lastFixMs: [String: Int64],
        names: [String: String], fromMs: Int64, toMs: Int64, nowMs: Int64, minS: Double
    ) -> StopsReport {
        var byDevice: [String: [TripRecord]] = [:]
        for t in trips { byDevice[t.device, default: []].append(t) }
        var idleBy: [String: [UsageEvent]] = [:]
        for e in idle where e.kind == .idleStart || e.kind == .idleEnd {
            idleBy[e.device, default: []].append(e)
        }
        var stops: [Stop] = []
        for device in byDevice.keys.sorted() {
            let list = byDevice[device]!.sorted { ($0.startTime, $0.id) < ($1.startTime, $1.id) }
            let last = lastFixMs[device]
            let episodes = idleEpisodes(
                (idleBy[device] ?? []).sorted { ($0.time, $0.id) < ($1.time, $1.id) },
                openUntil: min(nowMs, max(last ?? 0, toMs)))
            for (i, t) in list.enumerated()
            where !t.open && t.endTime >= fromMs && t.endTime < toMs {
                let next = list[(i + 1)...].first { $0.startTime >= t.endTime }
                let end = next?.startTime ?? max(t.endTime, min(last ?? t.endTime, nowMs))
                guard Double(end - t.endTime) / 1000 >= minS else { continue }
                var idleMs: Int64 = 0
                for (s, e) in episodes {
                    idleMs += max(0, min(e, end) - max(s, t.endTime))
                }
                stops.append(
                    Stop(
                        device: device, name: names[device], startMs: t.endTime, endMs: end,
                        lat: t.endLat, lon: t.endLon, fence: t.endFence,
                        idleS: (Double(idleMs) / 100).rounded() / 10, ongoing: next == nil))
            }
        }
        return StopsReport(
            fromMs: fromMs, toMs: toMs, generatedMs: nowMs, minS: minS, stops: stops)
    }

    /// Idling episodes as `[start, end)` ms: an `idle_start` (dated at the
    /// episode's start) to the next `idle_end` (dated at its end); an
    /// `idle_end` with no start seen began `duration_s` before it; one
    /// still open lasts until `openUntil`.
    static func idleEpisodes(_ events: [UsageEvent], openUntil: Int64) -> [(Int64, Int64)] {
        var out: [(Int64, Int64)] = []
        var since: Int64?
        for e in events {
            if e.kind == .idleStart {
                if since == nil { since = e.time }
            } else if e.kind == .idleEnd {
                let begun = since ?? (e.time - Int64(((e.durationS ?? 0) * 1000).rounded()))
                out.append((begun, e.time))
                since = nil
            }
        }
        if let since, openUntil > since { out.append((since, openUntil)) }
        return out
    }
}
