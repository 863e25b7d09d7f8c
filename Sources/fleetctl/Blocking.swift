import Foundation
import Synchronization

/// Runs async work from fleetctl's synchronous commands (on the main
/// thread, never on the cooperative pool) and waits for its result.
enum Blocking {
    static func wait<T: Sendable, E: Error>(_ body: @escaping @Sendable () async throws(E) -> T)
        -> Result<T, E>
    {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, E>?>(nil)
        Task {
            let r: Result<T, E>
            do throws(E) {
                r = .success(try await body())
            } catch {
                r = .failure(error)
            }
            result.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
