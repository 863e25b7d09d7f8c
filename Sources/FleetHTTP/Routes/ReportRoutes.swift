import FleetModel
import FleetReports
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /api/v1/reports/usage?from=&to=&device=&format=`: the usage report
/// (`UsageReport`) for `[from, to)`, as JSON, or CSV with `Accept: text/csv`
/// or `format=csv` (a download, for links). A period without data is a
/// report of zeros; `to` not after `from` is a 400.
enum ReportRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(
                .get, "/api/v1/reports/usage", role: .viewer,
                parameters: ["from", "to", "device", "format"]
            ) { r in
                guard let from = try r.time("from") else {
                    throw APIError.badParameter("from", "required: the start of the period")
                }
                guard let to = try r.time("to") else {
                    throw APIError.badParameter("to", "required: the end of the period")
                }
                guard to > from else { throw APIError.badParameter("to", "must be after from") }
                let device = try r.query["device"].map { v throws(APIError) in try r.device(v) }
                var csv = (r.header(.accept)?.lowercased() ?? "").contains("text/csv")
                switch r.query["format"] {
                case nil: break
                case "json"?: csv = false
                case "csv"?: csv = true
                case let v?:
                    throw APIError.badParameter(
                        "format", "\"\(v.prefix(20))\" is neither json nor csv")
                }
                let now = DeviceRoutes.now()
                let report = try await d.read { reader in
                    try UsageInputs.report(
                        reader, fromMs: from, toMs: to, device: device, nowMs: now)
                }
                guard csv else { return Replies.json(report.jsonLine) }
                var h = HTTPFields()
                h[.contentDisposition] =
                    "attachment; filename=\"usage-\(Self.day(from))-\(Self.day(to)).csv\""
                return Replies.body(report.csv, type: "text/csv; charset=utf-8", headers: h)
            }
        ]
    }

    /// `YYYYMMDD` of a time (UTC), for file names.
    static func day(_ ms: Int64) -> String {
        String(RFC3339.format(millis: ms).prefix(10).filter { $0 != "-" })
    }
}
