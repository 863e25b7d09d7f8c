import FleetTracking

/// `[screen]`: the door's plausibility checks (owned by FleetTracking's `ScreenPolicy`).
extension ScreenPolicy {
    init(_ s: inout ConfigSection) throws(ConfigError) {
        self.init()
        let future = try s.int(
            "future_margin_s", default: Int(futureMarginMs / 1000), range: 0...86_400 * 366)
        futureMarginMs = Int64(future) * 1000
        maxSpeedKmh = try s.double("max_speed_kmh", default: maxSpeedKmh, range: 1...100_000)
    }
}
