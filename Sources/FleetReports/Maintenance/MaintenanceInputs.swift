import FleetStorage

/// Where vehicles stand under the maintenance plans, read through any
/// backend's `StoreReading`: the latest service of each plan, the
/// odometer now, and engine hours from the ignition alerts since.
public enum MaintenanceInputs {
    /// `device`'s status under each plan that applies to it, in plan order.
    /// A plan without a service recorded for it counts from `nowMs` (the
    /// daemon records that start the first time it checks). Throws `StoreError`.
    public static func statuses(
        _ plans: [MaintenancePlan], device: DeviceRecord, reader: any StoreReading, nowMs: Int64
    ) throws(StoreError) -> [MaintenanceStatus] {
        let latest = try reader.maintenance(device: device.ident, latestOnly: true)
        var out: [MaintenanceStatus] = []
        for plan in plans where plan.applies(to: device.ident, group: device.group) {
            let last =
                latest.first { $0.plan == plan.name }
                ?? MaintenanceRecord(
                    plan: plan.name, device: device.ident, doneMs: nowMs,
                    odometerM: device.odometerM, by: "plan")
            out.append(
                try status(
                    plan, last: last, odometerM: device.odometerM, reader: reader, nowMs: nowMs))
        }
        return out
    }

    /// One plan's status from its latest service `last`. Throws `StoreError`.
    public static func status(
        _ plan: MaintenancePlan, last: MaintenanceRecord, odometerM: Double,
        reader: any StoreReading, nowMs: Int64
    ) throws(StoreError) -> MaintenanceStatus {
        let engine =
            plan.everyEngineH == nil
            ? nil
            : try engineSeconds(reader, device: last.device, fromMs: last.doneMs, nowMs: nowMs)
        return plan.status(last: last, odometerM: odometerM, engineS: engine, nowMs: nowMs)
    }

    /// Seconds of ignition on from `fromMs` to `nowMs`, from the device's
    /// `ignition_on` and `ignition_off` alerts (on at the start when the
    /// first of them is an `ignition_off`). Throws `StoreError`.
    public static func engineSeconds(
        _ reader: any StoreReading, device: String, fromMs: Int64, nowMs: Int64
    ) throws(StoreError) -> Double {
        var events: [(type: String, time: Int64)] = []
        for type in ["ignition_on", "ignition_off"] {
            var after: Int64 = 0
            while true {
                let got = try reader.alerts(
                    afterId: after, limit: 10_000,
                    filter: AlertFilter(device: device, type: type, sinceMs: fromMs))
                events += got.map { ($0.type, $0.time) }
                guard got.count == 10_000, let last = got.last else { break }
                after = last.id
            }
        }
        let first = events.min { $0.time < $1.time }
        return EngineHours.seconds(
            events, fromMs: fromMs, nowMs: nowMs, onAtStart: first?.type == "ignition_off")
    }

    /// The odometer at `ms`: the end of the last trip ended by then (within
    /// 90 days before), or the
    /// odometer now when the last fix is not later. Throws `StoreError`.
    public static func odometer(
        _ reader: any StoreReading, device: DeviceRecord, at ms: Int64
    ) throws(StoreError) -> Double {
        if let last = device.lastFix, last <= ms { return device.odometerM }
        let trips = try reader.trips(
            filter: TripFilter(device: device.ident, fromMs: ms - 90 * 86_400_000, toMs: ms),
            limit: 10_000)
        return trips.filter { !$0.open && $0.endTime <= ms }.max { $0.endTime < $1.endTime }?
            .endOdometerM ?? 0
    }
}
