import FleetModel

extension UsageReport {
    /// The report as CSV (RFC 4180, CRLF): a header, one row per vehicle,
    /// then the totals (`device` empty, `name` "total"). Columns are the
    /// JSON's row fields in its units; `fence_visits` is
    /// `FENCE=VISITS/INSIDE_S` joined by `; `.
    public var csv: String {
        var out =
            "device,name,distance_m,driving_s,trips,parked_s,max_speed_kmh,overspeed_episodes,"
            + "overspeed_s,fence_visits,first_fix,last_fix,fixes,idle_episodes,idle_s\r\n"
        for r in vehicles + [totals] {
            let visits = r.fenceVisits.map { "\($0.fence)=\($0.visits)/\(CSV.number($0.insideS))" }
            let fields: [String] = [
                r.device ?? "", r.device == nil ? "total" : (r.name ?? ""), CSV.number(r.distanceM),
                CSV.number(r.drivingS), String(r.trips), CSV.number(r.parkedS),
                CSV.number(r.maxSpeedKmh), String(r.overspeedEpisodes), CSV.number(r.overspeedS),
                visits.joined(separator: "; "),
                r.firstFixMs.map { RFC3339.format(millis: $0) } ?? "",
                r.lastFixMs.map { RFC3339.format(millis: $0) } ?? "", String(r.fixes),
                String(r.idleEpisodes), CSV.number(r.idleS),
            ]
            out += fields.map(CSV.field).joined(separator: ",") + "\r\n"
        }
        return out
    }
}
