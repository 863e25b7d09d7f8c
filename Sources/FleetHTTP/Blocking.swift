import Dispatch

/// Runs blocking work (store reads, bcrypt) on Dispatch's global pool, off
/// the server's event loops and Swift's cooperative threads.
public enum Blocking {
    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T)
        async throws(E) -> T
    {
        let result: Result<T, E> = await withCheckedContinuation { c in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(E) {
                    c.resume(returning: .success(try body()))
                } catch {
                    c.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
