/// Defaults the tracker applies where a fence does not say (config `[tracking]`).
public struct TrackerSettings: Sendable, Equatable {
    /// Exit hysteresis: a vehicle inside exits once more than this many metres
    /// outside the boundary (a fence's `margin_m` overrides; 0 turns it off).
    public var marginM: Double = 20
    /// Seconds a state must hold before its alert (a fence's `dwell_s` overrides).
    public var dwellS: Double = 0
    /// Consecutive fixes beyond the margin that confirm an exit (1 = the first
    /// one does). Against GNSS scatter around a fence line: with 10 m σ and the
    /// 20 m margin one fix in 40 lands beyond, three in a row one in 80 000.
    public var exitConfirmFixes: Int = 3

    public init(marginM: Double = 20, dwellS: Double = 0, exitConfirmFixes: Int = 3) {
        self.marginM = marginM
        self.dwellS = dwellS
        self.exitConfirmFixes = exitConfirmFixes
    }
}
