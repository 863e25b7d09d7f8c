import FleetStorage
import Synchronization

/// Gathers the subscriptions' steps (an attempt's record, the next batch)
/// into one writer job: the steps asked for while a job waits for its
/// turn at the writer all go in it, in one store call
/// (`WebhookOutboxStore.webhookSteps`, one transaction on SQLite). Ten
/// subscriptions working through a backlog then cost the writer one small
/// transaction per round instead of ten, and one turn between commits.
final class WebhookStepQueue: Sendable {
    /// Runs a job on the store's writer between commits (the commit
    /// stage's `perform`); throws when there is no writer to run it.
    typealias Perform =
        @Sendable (_ job: @escaping @Sendable (any Store) throws(StoreError) -> Void) async throws
        ->
        Void
    private typealias Waiter = CheckedContinuation<Result<WebhookBatch?, any Error>, Never>

    private let perform: Perform
    /// The steps waiting with their callers, and whether a job is on its
    /// way to the writer to take them.
    private let state = Mutex<(waiting: [(WebhookStep, Waiter)], queued: Bool)>(([], false))

    /// How long the first step waits for others before its job is asked
    /// for: the subscriptions' steps of the moment share one transaction,
    /// and the writer is woken once for them.
    static let gather = Duration.milliseconds(5)

    init(perform: @escaping Perform) { self.perform = perform }

    /// Runs `step` in the next writer job and returns the next batch it
    /// found or formed (nil when it asked for none or none is owed).
    /// Throws what the store threw for the job's steps, or when no writer runs.
    func run(_ step: WebhookStep) async throws -> WebhookBatch? {
        let result = await withCheckedContinuation { (c: Waiter) in
            let first = state.withLock { s in
                s.waiting.append((step, c))
                defer { s.queued = true }
                return !s.queued
            }
            if first {
                Task {
                    try? await Task.sleep(for: Self.gather)
                    await self.send()
                }
            }
        }
        return try result.get()
    }

    /// Asks the writer for a job that takes every step waiting when it runs.
    private func send() async {
        do {
            try await perform { store throws(StoreError) in
                let taken = self.take()
                guard !taken.isEmpty else { return }
                do throws(StoreError) {
                    let formed = try store.webhookSteps(taken.map(\.0))
                    for (k, (_, c)) in taken.enumerated() {
                        c.resume(returning: .success(k < formed.count ? formed[k] : nil))
                    }
                } catch {
                    for (_, c) in taken { c.resume(returning: .failure(error)) }
                }
            }
        } catch {
            // No job ran (no writer): every step waiting fails.
            for (_, c) in take() { c.resume(returning: .failure(error)) }
        }
    }

    /// The steps waiting, taken; the next step asks for a job of its own.
    private func take() -> [(WebhookStep, Waiter)] {
        state.withLock { s in
            defer {
                s.waiting = []
                s.queued = false
            }
            return s.waiting
        }
    }
}
