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
/// `GET /api/v1/reports/stops?from=&to=&device=&min_s=&format=`: the stops
/// report (`StopsReport`), stops of at least `min_s` seconds (300 by
/// default) starting in `[from, to)`, as JSON or CSV likewise. Both cover
/// only the vehicles the caller sees.
enum ReportRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(
                .get, "/api/v1/reports/usage", role: .viewer,
                parameters: ["from", "to", "device", "format"]
            ) { r in
                let (from, to, csv) = try period(r)
                let device = try r.query["device"].map { v throws(APIError) in try r.device(v) }
                let now = DeviceRoutes.now()
                let seen = try await d.visibleDevices(r)
                var report = try await gated(d, from: from, to: to, device: device) { reader in
                    try UsageInputs.report(
                        reader, fromMs: from, toMs: to, device: device, nowMs: now)
                }
                if let seen { report = report.restricted(to: seen) }
                guard csv else { return Replies.json(report.jsonLine) }
                var h = HTTPFields()
                h[.contentDisposition] =
                    "attachment; filename=\"usage-\(Self.day(from))-\(Self.day(to)).csv\""
                return Replies.body(report.csv, type: "text/csv; charset=utf-8", headers: h)
            },
            Route(
                .get, "/api/v1/reports/stops", role: .viewer,
                parameters: ["from", "to", "device", "min_s", "format"]
            ) { r in
                let (from, to, csv) = try period(r)
                let device = try r.query["device"].map { v throws(APIError) in try r.device(v) }
                let minS =
                    try r.query["min_s"].map { v throws(APIError) in
                        guard let n = Double(v), n.isFinite, (0...31_536_000).contains(n) else {
                            throw APIError.badParameter(
                                "min_s",
                                "\"\(v.prefix(20))\" is not a number of seconds from 0 to 31536000")
                        }
                        return n
                    } ?? 300
                let now = DeviceRoutes.now()
                let seen = try await d.visibleDevices(r)
                var report = try await gated(
                    d, from: from, to: to + StopsInputs.lookAheadMs, device: device
                ) { reader in
                    try StopsInputs.report(
                        reader, fromMs: from, toMs: to, device: device, minS: minS, nowMs: now)
                }
                if let seen { report.stops.removeAll { !seen.contains($0.device) } }
                guard csv else { return Replies.json(report.jsonLine) }
                var h = HTTPFields()
                h[.contentDisposition] =
                    "attachment; filename=\"stops-\(Self.day(from))-\(Self.day(to)).csv\""
                return Replies.body(report.csv, type: "text/csv; charset=utf-8", headers: h)
            },
        ]
    }

    /// Makes a report through `make`, within the report gate
    /// (`http.report_concurrency`; 503 when too many wait) and once the
    /// trips of `[from, to)` are known to number at most
    /// `http.report_max_trips` (counted page by page, none kept; 422 when
    /// more).
    static func gated<T: Sendable>(
        _ d: RouteDeps, from: Int64, to: Int64, device: String?,
        _ make: @escaping @Sendable (any StoreReading) throws -> T
    ) async throws -> T {
        let max = d.settings.reportMaxTrips
        let made = try await d.reports.run { () async throws -> T in
            try await d.read { reader in
                var seen = 0
                try reader.forEachTripPage(TripFilter(device: device, fromMs: from, toMs: to)) {
                    seen += $0.count
                    return seen <= max
                }
                guard seen <= max else {
                    throw APIError(
                        .unprocessableContent, "report too large",
                        "the period holds more than \(max) trips (http.report_max_trips): ask for a shorter period or one vehicle",
                        problems: [
                            "to: the period holds more than \(max) trips (http.report_max_trips)"
                        ])
                }
                return try make(reader)
            }
        }
        guard let made else {
            var e = APIError(
                .serviceUnavailable, "too many reports at once",
                "\(d.settings.reportConcurrency) reports are being made and more wait (http.report_concurrency): try again shortly"
            )
            e.headers[.retryAfter] = "1"
            throw e
        }
        return made
    }

    /// A report's `from`, `to` (required, `to` after `from`) and whether it
    /// is wanted as CSV (`Accept: text/csv` or `format=csv`; `format=json`
    /// wins over the header).
    static func period(_ r: APIRequest) throws(APIError) -> (Int64, Int64, Bool) {
        guard let from = try r.time("from") else {
            throw APIError.badParameter("from", "required: the start of the period")
        }
        guard let to = try r.time("to") else {
            throw APIError.badParameter("to", "required: the end of the period")
        }
        guard to > from else { throw APIError.badParameter("to", "must be after from") }
        var csv = (r.header(.accept)?.lowercased() ?? "").contains("text/csv")
        switch r.query["format"] {
        case nil: break
        case "json"?: csv = false
        case "csv"?: csv = true
        case let v?:
            throw APIError.badParameter("format", "\"\(v.prefix(20))\" is neither json nor csv")
        }
        return (from, to, csv)
    }

    /// `YYYYMMDD` of a time (UTC), for file names.
    static func day(_ ms: Int64) -> String {
        String(RFC3339.format(millis: ms).prefix(10).filter { $0 != "-" })
    }
}
