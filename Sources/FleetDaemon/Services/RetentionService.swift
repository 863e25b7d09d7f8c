import ServiceLifecycle

/// Retention as a service: every 2 s, deletes what has expired (`Retention`)
/// until the group shuts down.
struct RetentionService: Service {
    let retention: Retention

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            await retention.runOnce()
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(2)) }
            } catch {
                return
            }
        }
    }
}
