import FleetModel

/// Where and how long each vehicle stood still in a period: the stops
/// report of `fleetctl report stops` and `GET /api/v1/reports/stops`.
/// Built by `StopsReportBuilder` from stored trips and idling alerts.
///
/// Rules (also in `docs/reports.md`):
/// - a stop is the time between the end of a trip and the start of the
///   same vehicle's next trip, at the place the first ended (a halt too
///   short to end a trip is part of it);
/// - it is listed in the period its start falls in (as trips are counted
///   in the period they start in), whole, even when it lasts past the end;
/// - a stop with no trip after it yet is `ongoing`, counted up to the
///   vehicle's last fix (and at most to the report's making);
/// - stops shorter than `min_s` are left out;
/// - `idle_s` is the time within it with the ignition on (idling episodes).
public struct StopsReport: Sendable, Equatable {
    /// The period, Unix ms, `from <= start < to`.
    public var fromMs: Int64
    public var toMs: Int64
    /// When the report was made, Unix ms.
    public var generatedMs: Int64
    /// The shortest stop listed, seconds.
    public var minS: Double
    /// By device id, then start.
    public var stops: [Stop]

    public init(fromMs: Int64, toMs: Int64, generatedMs: Int64, minS: Double, stops: [Stop]) {
        self.fromMs = fromMs
        self.toMs = toMs
        self.generatedMs = generatedMs
        self.minS = minS
        self.stops = stops
    }

    /// The report as CSV (RFC 4180, CRLF): a header, then one row per stop,
    /// the JSON's fields in its units.
    public var csv: String {
        var out = "device,name,start,end,duration_s,lat,lon,fence,idle_s,ongoing\r\n"
        for s in stops {
            let fields = [
                s.device, s.name ?? "", RFC3339.format(millis: s.startMs),
                RFC3339.format(millis: s.endMs), CSV.number(s.durationS), CSV.number(s.lat),
                CSV.number(s.lon), s.fence ?? "", CSV.number(s.idleS), s.ongoing ? "true" : "false",
            ]
            out += fields.map(CSV.field).joined(separator: ",") + "\r\n"
        }
        return out
    }
}
