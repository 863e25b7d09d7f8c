import FleetModel
import FleetTracking

/// One fix to store, as the tracker disposed of it.
public struct PositionRow: Sendable {
    public var fix: Fix
    public var disposition: FixDisposition
    /// Wall-clock receive time, Unix milliseconds.
    public var receivedMs: Int64

    public init(fix: Fix, disposition: FixDisposition, receivedMs: Int64) {
        self.fix = fix
        self.disposition = disposition
        self.receivedMs = receivedMs
    }
}
