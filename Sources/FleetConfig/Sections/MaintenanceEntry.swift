import FleetStorage

/// One `[[maintenance]]` table: a `MaintenancePlan`.
enum MaintenanceEntry {
    static func plan(_ s: inout ConfigSection) throws(ConfigError) -> MaintenancePlan {
        let name = try s.string("name", default: "")
        guard WebhookRules.validName(name) else {
            throw s.error(
                "name", "\"\(name)\" is not a plan name (1–64 characters of [A-Za-z0-9_-])")
        }
        func measure(_ key: String, _ range: ClosedRange<Double>) throws(ConfigError) -> Double? {
            guard s.table[key] != nil else { return nil }
            return try s.double(key, default: 0, range: range)
        }
        let km = try measure("every_km", 1...10_000_000)
        let hours = try measure("every_engine_h", 1...1_000_000)
        let days = try measure("every_days", 1...36_500)
        guard km != nil || hours != nil || days != nil else {
            throw s.error(
                "every_km",
                "give at least one of every_km, every_engine_h and every_days (plan \(name))")
        }
        var plan = MaintenancePlan(
            name: name, devices: try s.strings("devices"), everyKm: km, everyEngineH: hours,
            everyDays: days)
        plan.groups = try GroupList.read(&s, what: "plan \(name)")
        return plan
    }
}
