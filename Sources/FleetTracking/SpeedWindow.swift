/// The span over which a trip's maximum speed is measured: one noisy
/// segment between two fixes 1 s apart must not report 134 km/h.
///
/// Speeds are averaged over consecutive spans of at least
/// `TrackerSettings.maxSpeedWindowS` (10 s by default) of fix time: the
/// reported speeds weighted by the time to the fix before them when the
/// device reports speed, else the odometer's distance over the span. A
/// trip's maximum is the highest such average; a span ends at the first fix
/// at least the window after it began, and the next begins there. A
/// relocation, a gap or setting off from parked (the odometer then counts
/// the way out of the parking scatter at once) starts a new span.
public struct SpeedWindow: Sendable, Equatable {
    /// Fix time (Unix ms) and odometer (m) where the span began.
    public var since: Int64
    public var odometerM: Double
    /// Σ reported speed × time to the fix before (km/h · ms), and Σ of those times (ms).
    public var reportedKmhMs: Double = 0
    public var reportedMs: Int64 = 0

    public init(since: Int64, odometerM: Double, reportedKmhMs: Double = 0, reportedMs: Int64 = 0) {
        self.since = since
        self.odometerM = odometerM
        self.reportedKmhMs = reportedKmhMs
        self.reportedMs = reportedMs
    }

    /// Adds the fix at `time` (odometer `odometerM`, reported speed
    /// `reportedKmh` if any, `stepMs` after the fix before). Returns the
    /// span's average speed (km/h) when the span is complete, and starts the
    /// next one at this fix; nil while it is not.
    mutating func add(
        time: Int64, odometerM odo: Double, reportedKmh: Double?, stepMs: Int64, windowMs: Int64
    ) -> Double? {
        if let v = reportedKmh, stepMs > 0 {
            reportedKmhMs += v * Double(stepMs)
            reportedMs += stepMs
        }
        let span = time - since
        guard span >= max(1, windowMs) else { return nil }
        let kmh =
            reportedMs > 0
            ? reportedKmhMs / Double(reportedMs)
            : max(0, odo - odometerM) / (Double(span) / 1000) * 3.6
        self = SpeedWindow(since: time, odometerM: odo)
        return kmh
    }
}
