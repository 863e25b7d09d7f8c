import CoreMetrics
import Prometheus
import Synchronization

/// Installs swift-prometheus as the process's swift-metrics backend, so
/// that what any library reports through swift-metrics lands in the same
/// registry as fleetd's own metrics (and in `GET /metrics`). swift-metrics
/// takes one backend per process: the first daemon's registry wins.
enum MetricsBootstrap {
    private static let installed = Mutex(false)

    static func install(_ registry: PrometheusCollectorRegistry) {
        installed.withLock { done in
            guard !done else { return }
            done = true
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        }
    }
}
