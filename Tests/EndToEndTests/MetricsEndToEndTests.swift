import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// `GET /metrics` as Prometheus scrapes it, judged by Prometheus's own
/// `promtool`; and the shipped alerting rules, checked by it too.
@Suite(.serialized, .offPool) struct MetricsEndToEndTests {
    static let promtool = "/usr/bin/promtool"
    let t0: Int64 = 1_700_000_000_000

    /// The value of the series `series` (name and labels as printed), or nil.
    static func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func scrapedMetricsCountWhatHappenedAndPassPromtool() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.promtool) else {
            Issue.record("\(Self.promtool) is missing (Debian's prometheus package)")
            return
        }
        let a = try APIEndToEndTests.APIDaemon()
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        // Outside, inside (an enter), outside (an exit): three stored, one resent.
        let lines = [
            fixLine(1, t0, lat: 47.95, lon: 11.05), fixLine(2, t0 + 10_000, lat: 48.05, lon: 11.05),
            fixLine(3, t0 + 20_000, lat: 48.15, lon: 11.05),
        ]
        for line in lines { #expect(exchange(client, [line])?.acked.count == 1) }
        #expect(exchange(client, [lines[2]])?.acked.count == 1)
        // A fix with a latitude out of range: rejected with its reason.
        _ = exchange(client, [fixLine(4, t0 + 30_000, lat: 91, lon: 11.05)])
        _ = try await a.http.get("/api/v1/devices", a.auth("viewer"))
        _ = try await a.http.get("/api/v1/devices/truck-1", a.auth("viewer"))
        _ = try await a.http.get("/api/v1/devices/truck-2", a.auth("viewer"))

        let r = try await a.http.get("/metrics")
        #expect(r.status == 200)
        #expect(
            r.headers.first(name: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = r.body
        #expect(
            (4...5).contains(
                Self.value(text, #"fleetd_fixes_received_total{protocol="json"}"#) ?? 0),
            "\(text)")
        #expect(Self.value(text, "fleetd_fixes_stored_total") == 3)
        #expect(Self.value(text, "fleetd_fixes_duplicate_total") == 1)
        #expect(Self.value(text, #"fleetd_datagrams_total{protocol="json"}"#) == 5)
        #expect(
            Self.value(
                text, #"fleetd_fixes_rejected_total{protocol="json",reason="lat_out_of_range"}"#)
                == 1, "\(text)")
        #expect(Self.value(text, #"fleetd_alerts_total{type="geofence_enter"}"#) == 1)
        #expect(Self.value(text, #"fleetd_alerts_total{type="geofence_exit"}"#) == 1)
        #expect(Self.value(text, "fleetd_storage_failing") == 0)
        #expect((Self.value(text, "fleetd_commit_duration_seconds_count") ?? 0) >= 4)
        #expect((Self.value(text, "fleetd_ack_latency_seconds_count") ?? 0) >= 4)
        #expect((Self.value(text, "process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((Self.value(text, "process_open_fds") ?? 0) > 3)
        // Routes by pattern, never by id: one series for both devices.
        #expect(
            Self.value(
                text,
                #"fleetd_http_requests_total{route="/api/v1/devices/{id}",method="GET",status="200"}"#
            )
                == 1, "\(text)")
        #expect(
            Self.value(
                text,
                #"fleetd_http_requests_total{route="/api/v1/devices/{id}",method="GET",status="404"}"#
            )
                == 1)
        #expect(!text.contains("truck-1"))
        // No live stream open, none ended.
        #expect(Self.value(text, "fleetd_streams") == 0, "\(text)")
        #expect(Self.value(text, #"fleetd_streams_ended_total{reason="slow"}"#) == 0)
        #expect(Self.value(text, #"fleetd_streams_ended_total{reason="behind"}"#) == 0)
        #expect(Self.value(text, "fleetd_stream_positions_waiting") == 0)
        // The devices gauge is set once a second.
        try await Task.sleep(for: .seconds(1.2))
        let later = try await a.http.get("/metrics").body
        #expect(Self.value(later, "fleetd_devices") == 1, "\(later)")
        #expect(
            Self.value(later, #"fleetd_fixes_received_total{protocol="json"}"#)
                == Self.value(text, #"fleetd_fixes_received_total{protocol="json"}"#))

        // Prometheus's own linter: names, units, help, types.
        let check = try runTool(Self.promtool, ["check", "metrics"], stdin: later)
        #expect(check.status == 0, "promtool check metrics:\n\(check.out)\(check.err)")
        #expect(a.d.stop() == 0)
    }

    @Test func theShippedAlertingRulesPassPromtool() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.promtool) else {
            Issue.record("\(Self.promtool) is missing (Debian's prometheus package)")
            return
        }
        let rules = Binaries.packageRoot.appendingPathComponent("config/fleetd.rules.yml").path
        let r = try runTool(Self.promtool, ["check", "rules", rules])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("SUCCESS: 7 rules found"), "\(r.out)")
    }
}
