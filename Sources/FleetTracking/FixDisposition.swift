/// How the tracker treated a fix; stored with the position.
public enum FixDisposition: Int, Sendable, Equatable {
    /// Processed in order; may have raised alerts and moved the vehicle.
    case accepted = 0
    /// Same device and time as the last processed fix: a resend. Not stored again.
    case duplicate = 1
    /// Older than the last processed fix: stored, flagged, no live alerts.
    case late = 2
    /// No GNSS fix according to the device: stored, never moves the vehicle.
    case invalid = 3
    /// Implies an impossible speed from the last accepted fix (a jump): held
    /// as a suspect, stored flagged. Turned into `accepted` when later fixes
    /// confirm the new place.
    case jump = 4
}
