import FleetModel

/// A stored position, as readers see it: the fix as it was stored, and how
/// the tracker disposed of it.
public struct PositionRecord: Sendable, Equatable {
    public var fix: Fix
    /// `FixDisposition` raw value: 0 accepted, 2 late, 3 invalid.
    public var disposition: Int

    public init(
        fix: Fix, disposition: Int
    ) {
        self.fix = fix
        self.disposition = disposition
    }
}
