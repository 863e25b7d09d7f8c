import FleetModel

/// A service plan (`[[maintenance]]`): due every `everyKm` driven, every
/// `everyEngineH` hours of ignition on, or every `everyDays` days —
/// whichever comes first — counted from the vehicle's latest service.
public struct MaintenancePlan: Sendable, Equatable {
    /// 1–64 of `[A-Za-z0-9_-]`.
    public var name: String
    /// Vehicles it applies to; empty (and `groups` empty): every vehicle.
    public var devices: [String]
    /// Groups whose vehicles it applies to, besides `devices`; both empty:
    /// every vehicle.
    public var groups: [String] = []
    public var everyKm: Double?
    public var everyEngineH: Double?
    public var everyDays: Double?

    public init(
        name: String, devices: [String] = [], everyKm: Double? = nil, everyEngineH: Double? = nil,
        everyDays: Double? = nil
    ) {
        self.name = name
        self.devices = devices
        self.everyKm = everyKm
        self.everyEngineH = everyEngineH
        self.everyDays = everyDays
    }

    /// Whether the plan applies to `device`, whose group is `group`: it is
    /// named in `devices` or its group in `groups`, or the plan names neither.
    public func applies(to device: String, group: String?) -> Bool {
        if devices.isEmpty && groups.isEmpty { return true }
        return devices.contains(device) || (group.map(groups.contains) ?? false)
    }

    /// Where a vehicle stands under this plan, from its latest service
    /// `last`, its odometer now, the engine hours since `last` (nil when
    /// the device reports no ignition) and the time now.
    public func status(
        last: MaintenanceRecord, odometerM: Double, engineS: Double?, nowMs: Int64
    ) -> MaintenanceStatus {
        let km = max(0, odometerM - last.odometerM) / 1000
        let days = Double(max(0, nowMs - last.doneMs)) / 86_400_000
        let hours = engineS.map { $0 / 3600 }
        var dueBy: [String] = []
        if let e = everyKm, km >= e { dueBy.append("km") }
        if let e = everyEngineH, let h = hours, h >= e { dueBy.append("engine_h") }
        if let e = everyDays, days >= e { dueBy.append("days") }
        return MaintenanceStatus(
            plan: name, device: last.device, lastDoneMs: last.doneMs, lastBy: last.by,
            kmSince: km, engineHSince: hours, daysSince: days, dueBy: dueBy,
            kmLeft: everyKm.map { $0 - km },
            engineHLeft: everyEngineH.flatMap { e in hours.map { e - $0 } },
            daysLeft: everyDays.map { $0 - days })
    }
}

/// Where one vehicle stands under one plan (the API's and fleetctl's JSON:
/// fields are added, never renamed).
public struct MaintenanceStatus: Sendable, Equatable {
    public var plan: String
    public var device: String
    public var lastDoneMs: Int64
    public var lastBy: String
    public var kmSince: Double
    /// nil: the device reports no ignition.
    public var engineHSince: Double?
    public var daysSince: Double
    /// What made it due (`km`, `engine_h`, `days`); empty: not due.
    public var dueBy: [String]
    /// What is left until due by each measure the plan has (negative: overdue).
    public var kmLeft: Double?
    public var engineHLeft: Double?
    public var daysLeft: Double?

    public var due: Bool { !dueBy.isEmpty }
}

extension MaintenanceStatus: Encodable {
    enum CodingKeys: String, CodingKey {
        case plan, device, due
        case lastDone = "last_done", lastBy = "last_by", kmSince = "km_since"
        case engineHSince = "engine_h_since", daysSince = "days_since", dueBy = "due_by"
        case kmLeft = "km_left", engineHLeft = "engine_h_left", daysLeft = "days_left"
    }

    public func encode(to encoder: any Encoder) throws {
        func r(_ v: Double) -> Double { (v * 10).rounded() / 10 }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(plan, forKey: .plan)
        try c.encode(device, forKey: .device)
        try c.encode(due, forKey: .due)
        try c.encode(dueBy, forKey: .dueBy)
        try c.encode(RFC3339.format(millis: lastDoneMs), forKey: .lastDone)
        try c.encode(lastBy, forKey: .lastBy)
        try c.encode(r(kmSince), forKey: .kmSince)
        try c.encode(engineHSince.map(r), forKey: .engineHSince)
        try c.encode(r(daysSince), forKey: .daysSince)
        try c.encode(kmLeft.map(r), forKey: .kmLeft)
        try c.encode(engineHLeft.map(r), forKey: .engineHLeft)
        try c.encode(daysLeft.map(r), forKey: .daysLeft)
    }
}

/// Engine hours from a device's ignition alerts: the time between each
/// `ignition_on` and the next `ignition_off` within `[fromMs, nowMs]` (an
/// interval open at either end counts from `fromMs` or to `nowMs`). Pure.
public enum EngineHours {
    public static func seconds(
        _ alerts: [(type: String, time: Int64)], fromMs: Int64, nowMs: Int64, onAtStart: Bool
    ) -> Double {
        var on: Int64? = onAtStart ? fromMs : nil
        var total: Int64 = 0
        for a in alerts.sorted(by: { $0.time < $1.time }) where a.time >= fromMs {
            if a.type == "ignition_on" {
                if on == nil { on = a.time }
            } else if a.type == "ignition_off", let s = on {
                total += max(0, a.time - s)
                on = nil
            }
        }
        if let s = on { total += max(0, nowMs - s) }
        return Double(total) / 1000
    }
}
