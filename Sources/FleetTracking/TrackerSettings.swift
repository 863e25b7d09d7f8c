/// Defaults the tracker applies where a fence does not say (config `[tracking]`).
public struct TrackerSettings: Sendable, Equatable {
    /// Exit hysteresis: a vehicle inside exits once more than this many metres
    /// outside the boundary (a fence's `margin_m` overrides; 0 turns it off).
    public var marginM: Double = 20
    /// Seconds a state must hold before its alert (a fence's `dwell_s` overrides).
    public var dwellS: Double = 0

    public init(marginM: Double = 20, dwellS: Double = 0) {
        self.marginM = marginM
        self.dwellS = dwellS
    }
}
