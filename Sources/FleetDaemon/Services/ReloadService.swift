import ServiceLifecycle
import UnixSignals

/// SIGHUP as a service: calls `reload` for each SIGHUP until the group
/// shuts down (the fences file, the alert log; systemd's `ExecReload=`).
struct ReloadService: Service {
    let reload: @Sendable () async -> Void

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            await reload()
        }
    }
}
