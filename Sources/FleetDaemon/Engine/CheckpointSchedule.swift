/// When device states are written (`storage.state_checkpoint_s`): devices
/// whose state changed since it was last written, in the order they first
/// changed, each due `intervalMs` after that. The devices' entries carry
/// the `dirty` flag that keeps a device queued once (`TrackedDevice`); this
/// keeps the queue. Pure: times are given, never read.
struct CheckpointSchedule {
    /// The interval, ms; 0: every change is written with its batch (nothing queued).
    let intervalMs: Int64
    private var order: [(device: String, at: Int64)] = []
    private var head = 0

    init(intervalMs: Int64) { self.intervalMs = intervalMs }

    /// Devices queued and not yet written.
    var waiting: Int { order.count - head }

    /// Queues `device`, changed at `t` (ms); the caller has just flagged it
    /// dirty (it was clean), so each device is queued once.
    mutating func queue(_ device: String, at t: Int64) { order.append((device, t)) }

    /// Takes the devices due at `nowMs` (every queued one when `all`),
    /// oldest first, handing each to `write`, until `limit` of them were
    /// written (`write` returns false for a device with no state to write:
    /// gone, or handed over). Nothing when the interval is 0.
    mutating func takeDue(nowMs: Int64, all: Bool, limit: Int, write: (String) -> Bool) {
        guard intervalMs > 0 else { return }
        let due = nowMs - intervalMs
        var n = 0
        while head < order.count, n < limit, all || order[head].at <= due {
            let device = order[head].device
            head += 1
            if write(device) { n += 1 }
        }
        if head > 4096 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
