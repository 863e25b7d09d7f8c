import FleetModel

/// What the tracker keeps of a device's recent past so that a fix arriving
/// after newer ones can still be tracked in its place
/// (`Tracker.process(_:state:rewind:containing:)`).
///
/// `base` is the device's state before `fixes[0]`; `fixes` are the fixes
/// tracked since, in fix-time order. A late fix newer than `base` is put in
/// its place by tracking `fixes` again from `base` with it; what that replay
/// raises that was not raised before is the late fix's outcome.
///
/// Two ways a late fix falls within reach:
/// - **Reordering**: a device that has sent a fix out of order within the
///   window (`TrackerSettings.reorderWindowS`) keeps its recent fixes for an
///   hour after (`reorderKeepMs`; the first such fix is late, the device
///   being in no rewind yet). The base moves on in steps of the window, a
///   second snapshot (`mark`) taken a window after it, so a fix up to one
///   window older than the newest is within reach, and the fixes kept span
///   at most about two windows. Devices whose datagrams arrive in order
///   keep nothing: the memory and time go only where reordering happens.
/// - **A backlog sent newest first**: a fix that ends a gap in fix times of
///   more than `TrackerSettings.backlogAfterS` pins the base at the gap
///   (the state before it) for `holdMs` (2 minutes) of fix time or
///   `holdFixes` fixes,
///   so the buffered records that arrive after it fill the gap in order.
/// - **A device never heard before** (`opening(first:)`): its first fix
///   may be its live record, with its buffer behind it, so the time before
///   it is a gap like any other. Until its next fix in order it keeps only
///   that fix (what it raised is found again by tracking it once more, the
///   tracker being deterministic); a fix older than it then opens the gap
///   as above, and the next fix in order without one drops the rewind.
///
/// Kept in memory only (not checkpointed): after a restart the first late
/// fixes of a device are late as before. A restart's replay of stored fixes
/// runs in fix-time order anyway, which is the order a rewind restores.
public struct Rewind: Sendable {
    /// The state before `fixes[0]` (nil: the device had none).
    var base: DeviceState? {
        get { baseBox?.value }
        set { baseBox = newValue.map(Frozen.init) }
    }
    /// `base` and `mark` in boxes of their own: a rewind holding a new
    /// device's first fix is about 100 bytes, not 900.
    private var baseBox: Frozen<DeviceState>?
    /// Fixes tracked since `base`, ascending by time.
    var fixes: [Fix] = []
    /// What tracking each of `fixes` raised (`at`: its index): alerts
    /// (type, fence, time) and the start times of trips ended, so that a
    /// replay raises nothing twice.
    var raised: [Raised] = []
    /// The state before `fixes[markAt]`, a window after the base.
    var mark: DeviceState? {
        get { markBox?.value }
        set { markBox = newValue.map(Frozen.init) }
    }
    private var markBox: Frozen<DeviceState>?
    var markAt = 0
    /// While the base holds a gap open for a backlog: until when (fix time, ms).
    var holdUntil: Int64?
    /// Until when (fix time, ms) the device's fixes are kept for the reorder
    /// window: `reorderKeepMs` after its last fix that came out of order.
    var reorderUntil: Int64?
    /// Opened at the device's first fix and nothing placed yet: `raised` is
    /// not kept (see `opening(first:)`).
    var fresh = false

    /// A device that sent a fix out of order within the window has its
    /// fixes kept for this long after it (fix time); one whose datagrams
    /// arrive in order keeps nothing.
    static let reorderKeepMs: Int64 = 3_600_000

    /// A gap's base is held this long (fix time) after the fix that ended it
    /// (a backlog is sent as coverage returns, one datagram per answer).
    static let holdMs: Int64 = 120_000
    /// …and for at most this many fixes.
    static let holdFixes = 1_000

    struct Raised: Equatable {
        var at: Int
        var type: AlertType?  // nil: a trip's end
        var fence: String?
        var time: Int64
    }

    init(base: DeviceState?, reorderUntil: Int64? = nil) {
        self.base = base
        self.reorderUntil = reorderUntil
    }

    /// For a device this process has just taken over from another node (a
    /// cluster's lease) at `state`: its datagrams were refused meanwhile and
    /// come back as their senders resend them, not always in order, so its
    /// fixes are kept as a reordering device's for `holdMs` of fix time
    /// after `state`'s newest (the first late one is then placed, not late).
    public init(resuming state: DeviceState) {
        self.init(base: state, reorderUntil: state.lastTime + Self.holdMs)
    }

    /// For a device whose first fix is `first`: a gap from the start, held
    /// as a backlog's (`holdMs`), keeping only that fix until a late one
    /// comes.
    static func opening(first: Fix) -> Rewind {
        var r = Rewind(base: nil)
        r.fixes = [first]
        r.holdUntil = first.time + holdMs
        r.fresh = true
        return r
    }

    /// The fix time before which nothing can be put in place.
    var floor: Int64 { baseBox?.value.lastTime ?? .min }

    /// Notes what tracking an in-order fix raised.
    mutating func note(_ fix: Fix, _ outcome: Tracker.Outcome) {
        let at = fixes.count
        fixes.append(fix)
        for a in outcome.alerts {
            raised.append(Raised(at: at, type: a.type, fence: a.fence, time: a.time))
        }
        for t in outcome.trips { raised.append(Raised(at: at, type: nil, time: t.start.time)) }
    }

    /// The mark becomes the base: what was tracked before it is dropped
    /// (its effects are in the mark's state).
    mutating func advance() {
        guard let m = mark else { return }
        base = m
        fixes.removeFirst(markAt)
        raised.removeAll { $0.at < markAt }
        for i in raised.indices { raised[i].at -= markAt }
        mark = nil
        markAt = 0
    }
}
