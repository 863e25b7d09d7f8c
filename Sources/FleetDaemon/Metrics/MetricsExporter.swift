import FleetHTTP
import FleetStorage
import Foundation
import Prometheus
import Synchronization

/// `GET /metrics`: the daemon's counters in the Prometheus text format
/// (https://prometheus.io/docs/instrumenting/exposition_formats/), through
/// swift-prometheus's registry. Names follow Prometheus's conventions
/// (https://prometheus.io/docs/practices/naming/): the `fleetd_` prefix,
/// base units (seconds, bytes), `_total` on counters. Labels are bounded
/// by the configuration (protocol, reason, alert type, webhook name, HTTP
/// route pattern and status), never by device or fence: the series count
/// stays the same with a million devices.
///
/// The counters are kept by `Metrics` per batch and copied into the
/// registry's counters when scraped (the difference since the last
/// scrape, so each stays monotonic); gauges are set then; the two
/// histograms are observed as commits happen.
public final class MetricsExporter: Sendable {
    private let metrics: Metrics
    private var registry: PrometheusCollectorRegistry { metrics.registry }
    /// What each counter series last reached, by name and labels.
    private let synced = Mutex<[String: Int]>([:])
    /// Scrapes one at a time (the sync and the rendering together).
    private let scraping = Mutex(())
    /// Process start, Unix seconds (`process_start_time_seconds`).
    private let startS = Date().timeIntervalSince1970

    public init(metrics: Metrics) { self.metrics = metrics }

    /// What the daemon knows beyond `Metrics` when scraped.
    public struct Extra: Sendable {
        /// Each webhook subscription's outbox (nil when it could not be read).
        public var webhooks: [WebhookStatus]?
        /// HTTP requests by "route method status".
        public var http: [String: Int] = [:]
        /// The live stream's (nil when the API is off).
        public var streams: EventHub.Counts?
        public var nowMs: Int64
        public init(
            webhooks: [WebhookStatus]?, http: [String: Int], streams: EventHub.Counts? = nil,
            nowMs: Int64
        ) {
            self.webhooks = webhooks
            self.http = http
            self.streams = streams
            self.nowMs = nowMs
        }
    }

    /// The exposition text now.
    public func render(_ extra: Extra) -> String {
        scraping.withLock { _ in
            let m = metrics.snapshot()
            for (proto, n) in m.datagramsBy {
                count(
                    "fleetd_datagrams_total", [("protocol", proto)], n,
                    "Datagrams received (OsmAnd: requests), by protocol.")
            }
            for (proto, n) in m.fixesInBy {
                count(
                    "fleetd_fixes_received_total", [("protocol", proto)], n,
                    "Fixes decoded from what was received, by protocol.")
            }
            for (key, n) in m.rejects {
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                count(
                    "fleetd_fixes_rejected_total",
                    [("protocol", parts[0]), ("reason", parts.count > 1 ? parts[1] : "")], n,
                    "Fixes (or datagrams that held none) rejected, by protocol and reason.")
            }
            count(
                "fleetd_fixes_stored_total", [], m.fixesStored,
                "Fixes committed to storage (resends of stored fixes not counted).")
            count(
                "fleetd_fixes_duplicate_total", [], m.duplicates,
                "Fixes received again after they were stored (resends), acknowledged again.")
            count("fleetd_commits_total", [], m.commits, "Commit transactions.")
            for (type, n) in m.alertsBy {
                count("fleetd_alerts_total", [("type", type)], n, "Alerts committed, by type.")
            }
            for (key, n) in m.webhookRequests {
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                count(
                    "fleetd_webhook_requests_total",
                    [("webhook", parts[0]), ("outcome", parts.count > 1 ? parts[1] : "")], n,
                    "Webhook requests, by subscription and outcome (delivered, failed, refused, gone)."
                )
            }
            for (name, n) in m.webhookAlertsDelivered {
                count(
                    "fleetd_webhook_alerts_delivered_total", [("webhook", name)], n,
                    "Alerts delivered to a webhook subscription (2xx answered).")
            }
            count(
                "fleetd_journal_alerts_left_out_total", [], m.journalLeftOut,
                "Alerts left out of the journal: alerts.journal_backlog were waiting for it (the database has them)."
            )
            count(
                "fleetd_journal_alerts_summarized_total", [], m.journalSummarized,
                "Alerts written to the journal only in a summary entry: more than alerts.journal_per_s a second (the database has them)."
            )
            for (key, n) in extra.http {
                let parts = key.split(separator: " ").map(String.init)
                guard parts.count == 3 else { continue }
                count(
                    "fleetd_http_requests_total",
                    [("route", parts[0]), ("method", parts[1]), ("status", parts[2])], n,
                    "HTTP requests answered, by route pattern, method and status.")
            }
            for (proto, n) in m.tcpOpened {
                count(
                    "fleetd_tcp_connections_opened_total", [("protocol", proto)], n,
                    "TCP connections taken at accept, by protocol.")
            }
            for (proto, n) in m.tcpOpen {
                gauge(
                    "fleetd_tcp_connections", [("protocol", proto)], Double(n),
                    "TCP connections open now, by protocol.")
            }
            gauge(
                "fleetd_queue_fixes", [], Double(m.queueFixes),
                "Fixes received and waiting to be tracked and committed.")
            gauge(
                "fleetd_states_unwritten", [], Double(m.statesUnwritten),
                "Device states changed since last written (what a crash now would replay).")
            gauge(
                "fleetd_devices", [], Double(m.devicesKnown), "Devices the engine tracks.")
            gauge(
                "fleetd_devices_silent", [], Double(m.devicesSilent),
                "Devices silent (device_silent raised, no fix since).")
            gauge(
                "fleetd_devices_forgotten", [], Double(m.devicesForgotten),
                "Devices dropped from memory after devices.forget_after_h of silence (state kept in the store)."
            )
            gauge(
                "fleetd_last_commit_timestamp_seconds", [], Double(m.lastCommitMs) / 1000,
                "When the last commit succeeded, Unix seconds (0: none yet).")
            gauge(
                "fleetd_storage_failing", [], m.writerError == nil ? 0 : 1,
                "1 while commits fail (acknowledgements held), else 0.")
            if let hooks = extra.webhooks {
                for w in hooks {
                    let name = w.subscription.name
                    gauge(
                        "fleetd_webhook_pending_alerts", [("webhook", name)], Double(w.pending),
                        "Alerts waiting to be delivered to a subscription.")
                    let age = w.oldestPendingMs.map { Double(max(extra.nowMs - $0, 0)) / 1000 } ?? 0
                    gauge(
                        "fleetd_webhook_oldest_pending_seconds", [("webhook", name)], age,
                        "Age of the oldest alert waiting for a subscription (0: none waiting).")
                    gauge(
                        "fleetd_webhook_dead_alerts", [("webhook", name)], Double(w.dead),
                        "Alerts dead-lettered for a subscription (fleetctl webhooks retry re-queues them)."
                    )
                    gauge(
                        "fleetd_webhook_enabled", [("webhook", name)],
                        w.subscription.disabled == nil ? 1 : 0,
                        "1 while a subscription is enabled; 0 after a 410 Gone disabled it.")
                }
            }
            if let streams = extra.streams {
                gauge(
                    "fleetd_streams", [], Double(streams.open),
                    "Live event streams (GET /api/v1/events) open now.")
                let help =
                    "Live event streams ended by fleetd: slow (the client was more than http.stream_buffer events behind) or behind (the hub fell 2 x http.stream_buffer events behind)."
                count("fleetd_streams_ended_total", [("reason", "slow")], streams.endedSlow, help)
                count(
                    "fleetd_streams_ended_total", [("reason", "behind")], streams.endedBehind, help)
                gauge(
                    "fleetd_stream_positions_waiting", [], Double(streams.positionsWaiting),
                    "Devices whose newest position the live streams have not sent yet (at most one a second per device, at most http.stream_positions_per_s in all)."
                )
            }
            ProcessMetrics.read(startS: startS).set(in: self)
            return registry.emitToString()
        }
    }

    /// Brings the counter series up to `value` (it only ever grows).
    private func count(_ name: String, _ labels: [(String, String)], _ value: Int, _ help: String) {
        let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
        let counter = registry.makeCounter(descriptor: Metrics.name(name, help), labels: labels)
        let before = synced.withLock { s in
            defer { s[key] = value }
            return s[key] ?? 0
        }
        if value > before { counter.increment(by: Int64(value - before)) }
    }

    func gauge(_ name: String, _ labels: [(String, String)], _ value: Double, _ help: String) {
        registry.makeGauge(descriptor: Metrics.name(name, help), labels: labels).set(to: value)
    }

    func counterSet(_ name: String, _ value: Double, _ help: String) {
        // A counter the kernel keeps (CPU time): set to its reading.
        let c = registry.makeCounter(descriptor: Metrics.name(name, help), labels: [])
        c.reset()
        c.increment(by: value)
    }
}
