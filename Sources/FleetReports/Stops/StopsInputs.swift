import FleetStorage

/// Reads what `StopsReportBuilder` needs from any backend's `StoreReading`.
public enum StopsInputs {
    /// How far past the period's end the trip after a stop is looked for:
    /// a stop whose next trip starts later than this is listed as
    /// `ongoing`, up to the last fix within it.
    public static let lookAheadMs: Int64 = 7 * 86_400_000

    /// The stops report of `[fromMs, toMs)` (one device or all) made at
    /// `nowMs`, stops of at least `minS` seconds. Throws `StoreError`.
    public static func report(
        _ reader: any StoreReading, fromMs: Int64, toMs: Int64, device: String?, minS: Double,
        nowMs: Int64
    ) throws(StoreError) -> StopsReport {
        let until = toMs + lookAheadMs
        var trips: [TripRecord] = []
        try reader.forEachTripPage(TripFilter(device: device, fromMs: fromMs, toMs: until)) {
            trips += $0
            return true
        }
        // Idling may have begun a little before the trip's recorded end.
        var idle: [UsageEvent] = []
        for type in ["idle_start", "idle_end"] {
            idle += try UsageInputs.events(
                reader,
                AlertFilter(
                    device: device, type: type, sinceMs: fromMs - 86_400_000, untilMs: until))
        }
        var lastFix: [String: Int64] = [:]
        for s in try reader.positionSpans(device: device, fromMs: fromMs, toMs: until) {
            lastFix[s.device] = s.lastMs
        }
        let names: [String: String]
        if let device {
            names = (try reader.device(device)?.name).map { [device: $0] } ?? [:]
        } else {
            names = try reader.deviceNames()
        }
        return StopsReportBuilder.make(
            trips: trips, idle: idle, lastFixMs: lastFix, names: names, fromMs: fromMs,
            toMs: toMs, nowMs: nowMs, minS: minS)
    }
}
