import Synchronization

/// A request waiting for its fixes' commit (an OsmAnd phone's HTTP
/// request): the reply sink marks it committed on the writer thread; the
/// request's task waits, bounded in time. Either may come first.
final class CommitWaiter: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Bool, Never>?)
        case done(Bool)
    }
    private let state = Mutex<State>(.waiting(nil))

    /// The fixes are committed (writer thread; never blocks).
    func committed() { finish(true) }

    /// The fixes will not be committed (their device is another node's).
    func refused() { finish(false) }

    private func finish(_ ok: Bool) {
        let c = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard case .waiting(let c) = s else { return nil }
            s = .done(ok)
            return c
        }
        c?.resume(returning: ok)
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
