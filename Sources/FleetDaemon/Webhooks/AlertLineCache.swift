import FleetStorage
import Synchronization

/// The JSON of alerts just read for one subscription's batch, kept a
/// moment for the other subscriptions sending the same alerts: ten
/// subscriptions of every alert then read and encode each alert once, not
/// ten times (an alert storm's backlog is millions).
///
/// An entry serves for `maxAgeMs` after it was read: a batch sent later
/// reads its alerts again, so an acknowledgement made meanwhile shows in
/// it (what one subscription sends may lag another's by up to that much).
/// Bounded: `capacity` slots, an alert's slot its id modulo the capacity
/// (a newer alert takes an older one's slot). A slot keeps its line until
/// a newer alert takes it, about 300 bytes each: 32 768 slots held 10 MB
/// from a storm on. 8 192 cover the most a batch asks (1 000) and about
/// what a subscription sends in the second an entry serves; on the shared
/// harness with 10 subscriptions, 7 MB less in use and no more CPU
/// (`docs/benchmarks.md`).
final class AlertLineCache: Sendable {
    private struct Entry {
        var id: Int64
        var line: String
        var readMs: Int64
    }

    static let maxAgeMs: Int64 = 1000
    static let capacity = 1 << 13
    private let slots = Mutex<[Entry?]>(Array(repeating: nil, count: AlertLineCache.capacity))

    private static func slot(_ id: Int64) -> Int { Int(id & Int64(capacity - 1)) }

    /// The lines of alerts `ids`, in order, if every one of them was read
    /// at most `maxAgeMs` before `nowMs`; otherwise nil.
    func lines(_ ids: ClosedRange<Int64>, nowMs: Int64) -> [String]? {
        guard ids.count <= Self.capacity else { return nil }
        return slots.withLock { s -> [String]? in
            var out: [String] = []
            out.reserveCapacity(ids.count)
            for id in ids {
                guard let e = s[Self.slot(id)], e.id == id, nowMs - e.readMs <= Self.maxAgeMs
                else { return nil }
                out.append(e.line)
            }
            return out
        }
    }

    /// Keeps `alerts`' lines, read at `nowMs`; returns them in order.
    @discardableResult
    func keep(_ alerts: [AlertRecord], nowMs: Int64) -> [String] {
        let lines = alerts.map(\.jsonLine)
        slots.withLock { s in
            for (a, line) in zip(alerts, lines) {
                s[Self.slot(a.id)] = Entry(id: a.id, line: line, readMs: nowMs)
            }
        }
        return lines
    }
}
