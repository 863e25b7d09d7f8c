import FleetModel

/// The checks every fix passes at the door, whatever its protocol.
///
/// Pure: the receive time is an argument, not read from a clock.
public struct ScreenPolicy: Sendable, Equatable {
    /// How far past the receive time a fix time may lie, milliseconds (default 10 min).
    public var futureMarginMs: Int64 = 600_000
    /// Earliest acceptable fix time: 2000-01-01T00:00:00Z, milliseconds.
    public var earliestMs: Int64 = 946_684_800_000
    /// Highest believable speed, km/h (default 500).
    public var maxSpeedKmh: Double = 500

    public init() {}

    public init(futureMarginMs: Int64, earliestMs: Int64 = 946_684_800_000, maxSpeedKmh: Double) {
        self.futureMarginMs = futureMarginMs
        self.earliestMs = earliestMs
        self.maxSpeedKmh = maxSpeedKmh
    }

    /// Why `fix` must be refused, or nil when it passes. `receivedAtMs` is the
    /// wall-clock receive time in Unix milliseconds.
    public func check(_ fix: Fix, receivedAtMs: Int64) -> (RejectReason, String)? {
        guard fix.lat.isFinite, abs(fix.lat) <= 90 else {
            return (.latOutOfRange, "latitude \(fix.lat) is outside −90…90")
        }
        guard fix.lon.isFinite, abs(fix.lon) <= 180 else {
            return (.lonOutOfRange, "longitude \(fix.lon) is outside −180…180")
        }
        if fix.valid, fix.lat == 0, fix.lon == 0 {
            return (.nullIsland, "position (0, 0) presented as a valid fix")
        }
        if fix.time > receivedAtMs + futureMarginMs {
            return (
                .futureTime,
                "fix time \(fix.time) ms is \((fix.time - receivedAtMs) / 1000) s in the future"
            )
        }
        if fix.time < earliestMs {
            return (.ancientTime, "fix time \(fix.time) ms is before 2000-01-01")
        }
        if let s = fix.speedKmh, !(s <= maxSpeedKmh) {
            return (.speedCeiling, "speed \(s) km/h is above the ceiling of \(maxSpeedKmh) km/h")
        }
        return nil
    }
}
