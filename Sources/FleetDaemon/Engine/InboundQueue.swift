import Foundation

/// The bounded queue between the UDP door and the engine, counted in fixes.
///
/// `offer` never blocks: what does not fit is refused and the door sheds it
/// (reason `overload`), so memory stays bounded however fast datagrams come.
/// Two bounds: `capacity` fixes waiting, and `maxDelayMs` for the oldest
/// waiting datagram (received that long ago and not yet taken): while the
/// writer is that far behind, nothing new is taken, so what is taken is
/// acknowledged before its sender gives up and resends.
///
/// The datagrams wait in a ring (`ArrivalRing`): a taken one is let go
/// of at once, and the ring's room is at most twice the most that waited,
/// and never more than `capacity`. An array taken from its front had
/// held every taken datagram's fixes until half of it was taken, up to
/// twice the queue (+90 MB in the shared harness's first failing step).
/// An arrival without fixes (none is queued today) counts as one, so the
/// slots stay bounded by `capacity` too.
final class InboundQueue: @unchecked Sendable {
    private let cond = NSCondition()
    private let items: ArrivalRing
    private var fixes = 0
    private var closed = false
    /// While `take` waits for its batch to fill: the fixes it wants (it is
    /// woken only when they are there, not by every datagram); 0 otherwise.
    private var filling = 0
    let capacity: Int
    let maxDelayMs: Int64

    init(capacity: Int, maxDelayMs: Int64 = .max) {
        self.capacity = capacity
        self.maxDelayMs = maxDelayMs
        items = ArrivalRing(maxSlots: capacity)
    }

    /// Appends the longest prefix of `datagrams` that fits; returns how many were taken.
    func offer(_ datagrams: [Arrival]) -> Int {
        cond.lock()
        defer { cond.unlock() }
        guard !closed else { return 0 }
        if let oldest = items.firstReceivedMs, let newest = datagrams.last,
            newest.receivedMs - oldest > maxDelayMs
        {
            return 0
        }
        let wasEmpty = items.isEmpty
        var taken = 0
        for d in datagrams {
            let weight = Self.weight(fixes: d.fixes.count)
            guard fixes + weight <= capacity else { break }
            items.append(d)
            fixes += weight
            taken += 1
        }
        if taken > 0 && (wasEmpty || (filling > 0 && fixes >= filling)) { cond.signal() }
        return taken
    }

    /// Waits for work, then for the batch to fill to `maxFixes` or for
    /// `maxDelay` to pass, and takes it. Returns an empty array after
    /// `idle` with nothing to do, nil once closed and drained.
    func take(maxFixes: Int, maxDelay: TimeInterval, idle: TimeInterval) -> [Arrival]? {
        cond.lock()
        defer { cond.unlock() }
        let idleDeadline = Date(timeIntervalSinceNow: idle)
        while items.isEmpty {
            if closed { return nil }
            if !cond.wait(until: idleDeadline) { return items.isEmpty ? [] : take0(maxFixes) }
        }
        if maxDelay > 0 && !closed {
            let deadline = Date(timeIntervalSinceNow: maxDelay)
            filling = maxFixes
            while fixes < maxFixes && !closed {
                if !cond.wait(until: deadline) { break }
            }
            filling = 0
        }
        return take0(maxFixes)
    }

    private func take0(_ maxFixes: Int) -> [Arrival] {
        var out: [Arrival] = []
        out.reserveCapacity(min(items.count, maxFixes))
        var n = 0
        while let first = items.firstFixCount.map(Self.weight(fixes:)),
            out.isEmpty || n + first <= maxFixes
        {
            n += first
            out.append(items.removeFirst())
        }
        fixes -= n
        return out
    }

    /// What an arrival of `fixes` fixes counts for against the bounds: at
    /// least one, so that the ring's slots are bounded too.
    private static func weight(fixes: Int) -> Int { max(fixes, 1) }

    /// Fixes waiting now.
    var depth: Int {
        cond.lock()
        defer { cond.unlock() }
        return fixes
    }

    /// Refuses further offers; `take` drains what is left, then returns nil.
    func close() {
        cond.lock()
        closed = true
        cond.broadcast()
        cond.unlock()
    }
}
