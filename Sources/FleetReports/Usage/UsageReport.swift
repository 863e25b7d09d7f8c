/// How much each vehicle was used in a period: the usage report of
/// `fleetctl report usage` and `GET /api/v1/reports/usage`. Built by
/// `UsageReportBuilder` from stored trips, alerts and positions.
///
/// Rules (also in `docs/reports.md`):
/// - a trip counts wholly in the period its start falls in (so reports of
///   adjacent periods add up to the report of both);
/// - a trip still under way adds its driving time up to the last fix (from
///   its `trip_start`), not its distance nor itself, until it ends;
/// - parked time is the time from the vehicle's first fix in the period to
///   the end of the period (or now, when earlier) not spent driving;
/// - fence visits and overspeed time are clipped to the period: a visit
///   under way when the period began counts as one, from the start of the
///   period; a visit still open counts up to the end (or now); an
///   overspeed episode still open counts up to the last fix;
/// - vehicles listed: every registered one (zeros when idle), and any other
///   with a fix, trip or alert in the period.
public struct UsageReport: Sendable, Equatable {
    /// The period, Unix ms, `from <= t < to`.
    public var fromMs: Int64
    public var toMs: Int64
    /// When the report was made, Unix ms: time after it is not counted.
    public var generatedMs: Int64
    /// One row per vehicle, by device id.
    public var vehicles: [UsageRow]
    /// The fleet's totals (sums; maxima for `max_speed_kmh`; the earliest
    /// first and latest last fix).
    public var totals: UsageRow
    /// By driver: the trips identified with a driver's key, by key (empty
    /// when no trip names one).
    public var drivers: [DriverUsage] = []

    public init(
        fromMs: Int64, toMs: Int64, generatedMs: Int64, vehicles: [UsageRow], totals: UsageRow,
        drivers: [DriverUsage] = []
    ) {
        self.drivers = drivers
        self.fromMs = fromMs
        self.toMs = toMs
        self.generatedMs = generatedMs
        self.vehicles = vehicles
        self.totals = totals
    }
}
