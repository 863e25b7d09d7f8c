import Synchronization

/// At most `concurrent` costly jobs at a time: the rest wait their turn,
/// at most `waiting` of them; beyond that a request is refused at once (503)
/// rather than queued. Password checks go through one (bcrypt costs about
/// a quarter of a second of a core each: a login flood then costs
/// `concurrent` cores, and requests with a token or a session, which never
/// hash, keep their speed); reports through another (each may hold a
/// period's trips in memory).
final class WorkGate: Sendable {
    private struct State {
        var running = 0
        var queue: [CheckedContinuation<Void, Never>] = []
    }

    private enum Entry { case now, wait, full }

    private let state = Mutex(State())
    let concurrent: Int
    let waiting: Int

    init(concurrent: Int, waiting: Int) {
        self.concurrent = concurrent
        self.waiting = waiting
    }

    /// Jobs waiting for a place now.
    var inLine: Int { state.withLock { $0.queue.count } }

    /// Runs `body` once a place is free; nil when too many already wait.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T? {
        let entry: Entry = state.withLock { s in
            if s.running < concurrent {
                s.running += 1
                return .now
            }
            return s.queue.count < waiting ? .wait : .full
        }
        switch entry {
        case .full: return nil
        case .now: break
        case .wait:
            // Queued under the lock; woken holding the place of the one that left.
            await withCheckedContinuation { c in
                let go = state.withLock { s -> Bool in
                    if s.running < concurrent {
                        s.running += 1
                        return true
                    }
                    s.queue.append(c)
                    return false
                }
                if go { c.resume() }
            }
        }
        defer { leave() }
        return try await body()
    }

    /// Gives the place to the next waiting, or frees it.
    private func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.queue.isEmpty {
                s.running -= 1
                return nil
            }
            return s.queue.removeFirst()
        }
        next?.resume()
    }
}
