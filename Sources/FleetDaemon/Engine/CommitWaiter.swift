import Synchronization

/// A sender waiting for its fixes' commit: an OsmAnd phone's HTTP request
/// (its task `wait`s, bounded in time), or a TCP connection (told through
/// `onFinish`, which hops to its event loop). The reply sink marks it
/// committed on the writer thread; either may come first.
final class CommitWaiter: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Bool, Never>?)
        case done(Bool)
    }
    private let state = Mutex<State>(.waiting(nil))
    /// Called once, with the outcome, on whichever thread finishes it first.
    private let onFinish: (@Sendable (Bool) -> Void)?

    /// A waiter a task awaits (`wait`).
    init() { onFinish = nil }

    /// A waiter that calls `onFinish` once with the outcome (true:
    /// committed), from the writer thread; it must not block.
    init(onFinish: @escaping @Sendable (Bool) -> Void) { self.onFinish = onFinish }

    /// The fixes are committed (writer thread; never blocks).
    func committed() { finish(true) }

    /// The fixes will not be committed (their device is another node's).
    func refused() { finish(false) }

    private func finish(_ ok: Bool) {
        let (first, c) = state.withLock { s -> (Bool, CheckedContinuation<Bool, Never>?) in
            guard case .waiting(let c) = s else { return (false, nil) }
            s = .done(ok)
            return (true, c)
        }
        c?.resume(returning: ok)
        if first { onFinish?(ok) }
    }

    /// True once committed; false when `timeoutS` passes first or the task is cancelled.
    func wait(timeoutS: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitCommitted() }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(timeoutS * 1000)))
                self.finish(false)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func waitCommitted() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    switch s {
                    case .done(let ok): return ok
                    case .waiting:
                        s = .waiting(c)
                        return nil
                    }
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            finish(false)
        }
    }
}
