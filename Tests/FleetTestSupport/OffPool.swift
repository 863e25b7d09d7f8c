// Swift Testing is there only when tests are built: `make release` builds
// every target, this one too, without it.
#if canImport(Testing)
    import Foundation
    import Testing

    /// Runs each job on a new thread of its own: a test whose body blocks
    /// (process waits, socket reads, sleeps) then never holds one of the
    /// cooperative pool's threads, which the other tests' async waits (and
    /// their wall-clock bounds) need. See SE-0417 (task executor preference).
    public final class ThreadPerJobExecutor: TaskExecutor, Sendable {
        public static let shared = ThreadPerJobExecutor()

        /// Marks the threads it starts (thread-specific data, `pthread_setspecific(3)`):
        /// thread names are not a reliable mark on Linux, where Foundation may
        /// answer a reused thread's old name.
        private static let mark: pthread_key_t = {
            var key = pthread_key_t()
            precondition(pthread_key_create(&key, nil) == 0)
            return key
        }()

        /// Whether the caller runs on one of the threads this executor started.
        public static var isCurrentThreadOurs: Bool { pthread_getspecific(mark) != nil }

        public func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            let key = Self.mark
            let thread = Thread {
                pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
                job.runSynchronously(on: executor)
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// `.offPool`: the test (or every test of the suite) runs with a task
    /// executor preference for `ThreadPerJobExecutor`, so its synchronous body
    /// and the nonisolated async code it calls run on threads of their own
    /// instead of the cooperative pool (two threads on a two-core machine).
    /// Task-local values (the running test, where its issues are recorded)
    /// stay as they are: the test is still one task.
    ///
    /// At most one such test per core runs at a time (`OffPoolGate`, waited
    /// for without blocking): the pool's two threads used to be what kept the
    /// end-to-end tests from all starting their daemons at once.
    public struct OffPoolTrait: SuiteTrait, TestTrait, TestScoping {
        public typealias TestScopeProvider = Self

        public var isRecursive: Bool { true }

        public func provideScope(
            for test: Test, testCase: Test.Case?,
            performing function: @Sendable () async throws -> Void
        ) async throws {
            guard testCase != nil else { return try await function() }
            await OffPoolGate.shared.enter()
            do {
                try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) {
                    try await function()
                }
            } catch {
                await OffPoolGate.shared.leave()
                throw error
            }
            await OffPoolGate.shared.leave()
        }
    }

    /// Lets at most `width` holders in at a time; the others wait (suspended,
    /// not blocking a thread) in arrival order.
    public actor OffPoolGate {
        public static let shared = OffPoolGate(
            width: max(1, ProcessInfo.processInfo.activeProcessorCount))

        private let width: Int
        private var inside = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        public init(width: Int) { self.width = width }

        /// Returns once the caller is one of at most `width` inside.
        public func enter() async {
            if inside < width {
                inside += 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Lets the next waiter in (its place handed on), or frees a place.
        public func leave() {
            if waiting.isEmpty {
                inside -= 1
            } else {
                waiting.removeFirst().resume()
            }
        }
    }

    extension Trait where Self == OffPoolTrait {
        /// Runs the test (every test of a suite) off the cooperative pool.
        public static var offPool: Self { Self() }
    }
#endif
