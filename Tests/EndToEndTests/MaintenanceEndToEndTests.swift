import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// Maintenance plans against a live fleetd: a vehicle meets a plan and
/// counts from then; a service recorded two days back makes it due by
/// days, one `maintenance_due` alert raised (not again after a restart);
/// the API shows it and records a service, after which it is not due.
@Suite(.serialized, .offPool) struct MaintenanceEndToEndTests {
    static let plans = """
        [alerts]
        maintenance_check_s = 1
        [[maintenance]]
        name = "service"
        every_km = 5000
        every_days = 1
        [[maintenance]]
        name = "tachograph"
        every_days = 700
        devices = ["van-9"]
        """

    @Test func aVehicleComesDueOnceAndAServiceClearsIt() async throws {
        var a = try APIEndToEndTests.APIDaemon(extra: Self.plans)
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(
            exchange(client, [fixLine(1, now - 5000, lat: 47.9, lon: 11.5, device: "truck-1")])
                != nil)
        let ctl = try Binaries.path("fleetctl")
        func list() throws -> [[String: Any]] {
            let r = try runTool(ctl, ["maintenance", "--config", a.d.configPath, "--json"])
            return r.out.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func dueAlerts() throws -> [[String: Any]] {
            try a.d.fleetctl("alerts").filter { $0["type"] as? String == "maintenance_due" }
        }
        // The plan meets the vehicle: it counts from now, not due.
        #expect(
            try WebhookEndToEndTests.wait(15) {
                try list().contains {
                    $0["plan"] as? String == "service" && $0["last_by"] as? String == "plan"
                }
            })
        let rows = try list()
        #expect(rows.count == 1, "\(rows)")  // tachograph is for van-9 only
        #expect(rows.first?["due"] as? Bool == false)

        // A service two days ago: due by days at the next check, one alert.
        let twoDaysAgo = Date(timeIntervalSince1970: Double(now) / 1000 - 2 * 86_400)
        let at = ISO8601DateFormatter().string(from: twoDaysAgo)
        let done = try runTool(
            ctl,
            [
                "maintenance", "done", "truck-1", "service", "--at", at, "--note", "oil",
                "--config", a.d.configPath,
            ])
        #expect(done.status == 0, "\(done.err)")
        #expect(done.out.contains("truck-1: service done at"), "\(done.out)")
        #expect(try WebhookEndToEndTests.wait(15) { try dueAlerts().count == 1 })
        try await Task.sleep(for: .milliseconds(2500))
        let alerts = try dueAlerts()
        #expect(alerts.count == 1, "\(alerts)")
        #expect(alerts.first?["plan"] as? String == "service")
        #expect(alerts.first?["due_by"] as? String == "days")
        #expect(try list().first?["due"] as? Bool == true)

        // The API: viewer reads, operator records; bad input is 422, an unknown vehicle 404.
        let view = try await a.http.get("/api/v1/devices/truck-1/maintenance", a.auth("viewer"))
        #expect(view.status == 200, "\(view.body)")
        let plans = view.json["plans"] as? [[String: Any]] ?? []
        #expect(plans.first?["due"] as? Bool == true, "\(view.body)")
        #expect(
            (view.json["records"] as? [[String: Any]])?.contains { $0["note"] as? String == "oil" }
                == true, "\(view.body)")
        let op = a.auth("operator") + [("Content-Type", "application/json")]
        let viewer = a.auth("viewer") + [("Content-Type", "application/json")]
        #expect(
            try await a.http.send(
                .POST, "/api/v1/devices/truck-1/maintenance", headers: viewer,
                body: #"{"plan":"service"}"#
            ).status == 403)
        for body in [
            #"{"plan":"nope"}"#, #"{}"#, #"{"plan":"service","x":1}"#,
            #"{"plan":"service","done_at":"2999-01-01T00:00:00Z"}"#, #"{"plan":"tachograph"}"#,
            "[]",
        ] {
            let bad = try await a.http.send(
                .POST, "/api/v1/devices/truck-1/maintenance", headers: op, body: body)
            #expect(bad.status == 422, "\(body): \(bad.status) \(bad.body)")
        }
        #expect(
            try await a.http.send(
                .POST, "/api/v1/devices/nobody/maintenance", headers: op,
                body: #"{"plan":"service"}"#
            ).status == 404)
        let serviced = try await a.http.send(
            .POST, "/api/v1/devices/truck-1/maintenance", headers: op,
            body: #"{"plan":"service","note":"brakes too"}"#)
        #expect(serviced.status == 201, "\(serviced.body)")
        #expect((serviced.json["by"] as? String)?.hasPrefix("token:operator") == true)
        let after = try await a.http.get("/api/v1/devices/truck-1/maintenance", a.auth("viewer"))
        #expect((after.json["plans"] as? [[String: Any]])?.first?["due"] as? Bool == false)

        // A restart raises nothing again.
        #expect(a.d.stop() == 0)
        a = try APIEndToEndTests.APIDaemon(extra: Self.plans, over: a)
        defer { _ = a.d.stop() }
        try await Task.sleep(for: .seconds(3))
        #expect(try dueAlerts().count == 1)
        let audit = try a.d.fleetctl("audit").filter {
            $0["action"] as? String == "maintenance.done"
        }
        #expect(audit.count == 2, "\(audit)")
    }
}
