import FleetJSON
import FleetProtocols
import Foundation

extension UsageReport {
    /// The report as CSV (RFC 4180, CRLF): a header, one row per vehicle,
    /// then the totals (`device` empty, `name` "total"). Columns are the
    /// JSON's row fields in its units; `fence_visits` is
    /// `FENCE=VISITS/INSIDE_S` joined by `; `.
    public var csv: String {
        var out =
            "device,name,distance_m,driving_s,trips,parked_s,max_speed_kmh,overspeed_episodes,"
            + "overspeed_s,fence_visits,first_fix,last_fix,fixes\r\n"
        for r in vehicles + [totals] {
            let visits = r.fenceVisits.map { "\($0.fence)=\($0.visits)/\(Self.num($0.insideS))" }
            let fields: [String] = [
                r.device ?? "", r.device == nil ? "total" : (r.name ?? ""), Self.num(r.distanceM),
                Self.num(r.drivingS), String(r.trips), Self.num(r.parkedS),
                Self.num(r.maxSpeedKmh), String(r.overspeedEpisodes), Self.num(r.overspeedS),
                visits.joined(separator: "; "),
                r.firstFixMs.map { RFC3339.format(millis: $0) } ?? "",
                r.lastFixMs.map { RFC3339.format(millis: $0) } ?? "", String(r.fixes),
            ]
            out += fields.map(Self.field).joined(separator: ",") + "\r\n"
        }
        return out
    }

    static func num(_ v: Double) -> String { JSONValue.number(v).jsonText }

    /// A CSV field, quoted when it holds a comma, quote or line break.
    static func field(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }
}
