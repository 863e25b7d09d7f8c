import Synchronization

/// With an open registry, how many device ids never seen before are taken
/// (`[devices] new_per_source`, `new_total`, `new_window_s`): a stranger
/// can name any id, and each new one costs memory in the engine, rows in
/// the database and, an hour later, a `device_silent` alert. Ids taken are
/// known from then on; beyond either budget in a window, a fix of a new id
/// is refused (`new_device_limit`) and its sender resends later. Windows
/// are fixed (the counts start again every `windowMs`). Senders on this
/// machine (a simulator, a benchmark, a gateway on the host) are not
/// counted unless `exemptLoopback` is off. On a node of a cluster the
/// budgets are the node's own (the cluster takes up to its nodes times
/// `total` in a window; one source's datagrams reach one node, so
/// `perSource` holds as it is), and the ids the other nodes took are
/// learnt from the shared store every few seconds (`learn`). Thread-safe.
final class NewDeviceBudget: Sendable {
    struct Limits: Sendable, Equatable {
        /// New ids taken from one source address in a window.
        var perSource: Int
        /// New ids taken from all sources in a window.
        var total: Int
        /// The window, ms.
        var windowMs: Int64
        /// Senders on this machine (127.0.0.0/8, ::1) are not counted.
        var exemptLoopback = true
    }

    /// True for an address on this machine: 127.0.0.0/8, `::1`, or IPv4
    /// loopback carried in IPv6 (`::ffff:127.…`).
    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    private struct State {
        var known: Set<String>
        var windowStart: Int64 = 0
        var total = 0
        var bySource: [String: Int] = [:]
    }

    let limits: Limits
    private let state: Mutex<State>

    /// `known`: the ids already in the database (with tracking state, or registered).
    init(limits: Limits, known: Set<String>) {
        self.limits = limits
        self.state = Mutex(State(known: known))
    }

    /// True when `device` is known (in the database at start, or taken
    /// since). The door asks `admit`, which answers the same for a known id.
    func isKnown(_ device: String) -> Bool { state.withLock { $0.known.contains(device) } }

    /// Adds ids taken elsewhere (by the other nodes of a cluster) to the
    /// known ones: they are not counted when they come here.
    func learn(_ ids: Set<String>) { state.withLock { $0.known.formUnion(ids) } }

    /// Whether `device`, from `source` (an address; nil when unknown, then
    /// only the total counts), is taken at `nowMs`: known already, or new
    /// within the budgets of the current window (then it is known from now
    /// on). `source` is asked only for a new id.
    func admit(_ device: String, source: () -> String?, nowMs: Int64) -> Bool {
        state.withLock { s in
            if s.known.contains(device) { return true }
            if nowMs - s.windowStart >= limits.windowMs || nowMs < s.windowStart {
                s.windowStart = nowMs
                s.total = 0
                s.bySource.removeAll(keepingCapacity: true)
            }
            let from = source()
            if limits.exemptLoopback, let from, Self.isLoopback(from) {
                s.known.insert(device)
                return true
            }
            guard s.total < limits.total else { return false }
            if let from {
                let used = s.bySource[from, default: 0]
                guard used < limits.perSource else { return false }
                s.bySource[from] = used + 1
            }
            s.total += 1
            s.known.insert(device)
            return true
        }
    }
}
