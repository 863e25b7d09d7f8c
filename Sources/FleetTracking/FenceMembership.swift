/// Where a device stands with one fence, between fixes.
///
/// A fence the device is plainly outside of has no membership. Dwell and
/// hysteresis live here: an enter waits `dwell_s` in `.entering`, an exit
/// waits in `.exiting`, and a device `.inside` exits only once it is more than
/// `margin_m` outside the boundary.
public struct FenceMembership: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Inside since `since` (ms), waiting for the dwell before the enter alert.
        case entering(since: Int64)
        /// Inside, the enter alert raised; entered at `since`.
        case inside(since: Int64)
        /// Entered at `enteredAt`; outside beyond the margin since `since` for
        /// `fixes` consecutive fixes, waiting for the confirmation and the dwell.
        case exiting(enteredAt: Int64, since: Int64, fixes: Int)
    }

    public var fence: String
    /// The phase, packed (a device keeps about 20 of these in a dense fleet
    /// area; packed, one is 40 bytes, not 48: 16 MB over 100 000 devices).
    /// `t1`: `since` or `enteredAt`; `t2`: an exit's `since`.
    private var t1: Int64 = 0
    private var t2: Int64 = 0
    /// The fence's rank in the tracker that last wrote this membership
    /// (valid when the state's `ranksEpoch` is that tracker's).
    var rank = RankHint()
    /// An exit's consecutive fixes outside, saturating at 65 535 (only
    /// compared with `exit_confirm_fixes`, at most 100).
    private var outsideFixes: UInt16 = 0
    /// 0 entering, 1 inside, 2 exiting.
    private var kind: UInt8 = 0

    public var phase: Phase {
        get {
            switch kind {
            case 0: .entering(since: t1)
            case 1: .inside(since: t1)
            default: .exiting(enteredAt: t1, since: t2, fixes: Int(outsideFixes))
            }
        }
        set {
            switch newValue {
            case .entering(let since):
                (kind, t1, t2, outsideFixes) = (0, since, 0, 0)
            case .inside(let since):
                (kind, t1, t2, outsideFixes) = (1, since, 0, 0)
            case .exiting(let enteredAt, let since, let fixes):
                (kind, t1, t2) = (2, enteredAt, since)
                outsideFixes = UInt16(clamping: fixes)
            }
        }
    }

    public init(fence: String, phase: Phase) {
        self.fence = fence
        self.phase = phase
    }

    public static func == (a: FenceMembership, b: FenceMembership) -> Bool {
        a.fence == b.fence && a.kind == b.kind && a.t1 == b.t1 && a.t2 == b.t2
            && a.outsideFixes == b.outsideFixes
    }

    /// One line of the persisted form: `id \t kind \t t1 [\t t2 \t fixes]`.
    var line: String {
        var out = ""
        appendLine(to: &out)
        return out
    }

    /// Appends `line` to `out` (no intermediate strings: the writer encodes
    /// thousands of these per commit).
    func appendLine(to out: inout String) {
        out += fence
        switch phase {
        case .entering(let s):
            out += "\te\t"
            out += String(s)
        case .inside(let s):
            out += "\ti\t"
            out += String(s)
        case .exiting(let e, let s, let n):
            out += "\tx\t"
            out += String(e)
            out += "\t"
            out += String(s)
            out += "\t"
            out += String(n)
        }
    }

    /// Reads `line`; a bare id (the first schema's form) is inside since `fallback`.
    init?(line: Substring, fallback: Int64) {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard let id = f.first, !id.isEmpty else { return nil }
        fence = String(id)
        if f.count == 1 {
            phase = .inside(since: fallback)
            return
        }
        guard f.count >= 3, let t1 = Int64(f[2]) else { return nil }
        switch f[1] {
        case "e": phase = .entering(since: t1)
        case "i": phase = .inside(since: t1)
        case "x":
            guard f.count >= 4, let t2 = Int64(f[3]) else { return nil }
            phase = .exiting(enteredAt: t1, since: t2, fixes: f.count >= 5 ? Int(f[4]) ?? 1 : 1)
        default: return nil
        }
    }
}
