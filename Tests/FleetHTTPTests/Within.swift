/// What `body` returns, or nil if it takes more than `seconds` (then it is
/// cancelled): a bound on a test's wait for a stream.
func within<T: Sendable>(
    seconds: Double, _ body: @escaping @Sendable () async -> T?
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
