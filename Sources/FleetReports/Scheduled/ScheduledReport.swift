import FleetStorage
import Foundation

/// A scheduled report as mailed (`[[reports]]`): its CSV and a few lines
/// that sum it up for the mail's text.
public struct ScheduledReport: Sendable, Equatable {
    /// RFC 4180 CSV: the usage or stops report's own CSV form.
    public var csv: String
    /// What the mail's text says about it, one line each.
    public var summary: [String]

    public init(csv: String, summary: [String]) {
        self.csv = csv
        self.summary = summary
    }

    /// Makes `rule`'s report of `[fromMs, toMs)` at `nowMs` through any
    /// backend's reader; only `rule.devices` and the vehicles of
    /// `rule.groups` (their groups as the store has them now) when it names
    /// some. Throws `StoreError`.
    public static func make(
        _ rule: ReportRule, _ reader: any StoreReading, fromMs: Int64, toMs: Int64, nowMs: Int64
    ) throws(StoreError) -> ScheduledReport {
        var keep = Set(rule.devices)
        if !rule.groups.isEmpty {
            let wanted = Set(rule.groups)
            keep.formUnion(try reader.deviceGroups().filter { wanted.contains($0.value) }.keys)
        }
        let restricted = !rule.devices.isEmpty || !rule.groups.isEmpty
        let only = restricted && keep.count == 1 ? keep.first : nil
        switch rule.kind {
        case .usage:
            var r = try UsageInputs.report(
                reader, fromMs: fromMs, toMs: toMs, device: only, nowMs: nowMs)
            if restricted { r = r.restricted(to: keep) }
            let t = r.totals
            return ScheduledReport(
                csv: r.csv,
                summary: [
                    "\(r.vehicles.count) vehicle\(r.vehicles.count == 1 ? "" : "s"): "
                        + String(format: "%.1f km", t.distanceM / 1000) + ", \(t.trips) trips, "
                        + "driving \(duration(t.drivingS)), idling \(duration(t.idleS)), "
                        + "\(t.overspeedEpisodes) overspeed episode\(t.overspeedEpisodes == 1 ? "" : "s")"
                ])
        case .stops:
            var r = try StopsInputs.report(
                reader, fromMs: fromMs, toMs: toMs, device: only, minS: rule.stopMinS,
                nowMs: nowMs)
            if restricted { r.stops = r.stops.filter { keep.contains($0.device) } }
            let vehicles = Set(r.stops.map(\.device)).count
            let idle = r.stops.reduce(0) { $0 + $1.idleS }
            return ScheduledReport(
                csv: r.csv,
                summary: [
                    "\(r.stops.count) stop\(r.stops.count == 1 ? "" : "s") of \(duration(rule.stopMinS)) or longer by \(vehicles) vehicle\(vehicles == 1 ? "" : "s"), idling \(duration(idle)) in all"
                ])
        }
    }

    /// `2h05m`, `7m`, `45s`.
    static func duration(_ s: Double) -> String {
        let t = Int(s.rounded())
        if t >= 3600 { return "\(t / 3600)h" + String(format: "%02dm", (t % 3600) / 60) }
        if t >= 60 { return "\(t / 60)m" }
        return "\(t)s"
    }
}

extension UsageReport {
    /// The report of `devices` only: their rows, totals over them, and the
    /// drivers who drove any of them.
    public func restricted(to devices: Set<String>) -> UsageReport {
        var r = self
        r.vehicles = vehicles.filter { $0.device.map(devices.contains) ?? false }
        r.totals = UsageReportBuilder.totals(r.vehicles)
        r.drivers = drivers.filter { !Set($0.devices).isDisjoint(with: devices) }
        return r
    }
}
