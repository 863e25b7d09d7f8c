import Synchronization

/// A doorbell for one waiting task: `ring` ends the current or the next
/// `wait`; `wait` also ends after its time limit or when the task is
/// cancelled. Rings while nobody waits are remembered as one.
final class Wakeup: Sendable {
    private let state = Mutex<(rung: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func ring() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else {
                s.rung = true
                return nil
            }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    /// Returns when rung, after `limit`, or on cancellation.
    func wait(_ limit: Duration) async {
        let timer = Task { [self] in
            // Cancelled (the wait ended first): no ring, or the next wait
            // would end at once, and its timer's cancellation ring again.
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            ring()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.rung || Task.isCancelled {
                        s.rung = false
                        return true
                    }
                    s.waiter = k
                    return false
                }
                if now { k.resume() }
            }
        } onCancel: {
            ring()
        }
        // A ring by the timer after a real one is left set: it costs one
        // more look, while clearing it here could lose a real ring.
        timer.cancel()
    }
}
