import FleetProtocols
import FleetSimCore
import Foundation
import Testing

@Suite(.serialized) struct ManagersViewEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    @Test func alertFiltersAndDaemonStatus() throws {
        let d = try DaemonProcess(
            fences: depotFences, extraConfig: "[tracking]\nexit_confirm_fixes = 1\n")
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        // Two vehicles each enter and leave the depot.
        var seq = 0
        for (k, device) in ["a-1", "b-2"].enumerated() {
            for (i, lat) in [47.9, 48.05, 48.2].enumerated() {
                seq += 1
                let t = t0 + Int64(k) * 100_000 + Int64(i) * 10_000
                #expect(
                    exchange(client, [fixLine(seq, t, lat: lat, lon: 11.05, device: device)])?.acked
                        == [Int64(seq)])
            }
        }
        client.send(Array("garbage".utf8))
        #expect(try d.fleetctl("alerts").count == 4)
        #expect(
            try d.fleetctl("alerts", ["--device", "b-2"]).map { $0["device"] as? String } == [
                "b-2", "b-2",
            ])
        #expect(
            try d.fleetctl("alerts", ["--type", "geofence_exit"]).map { $0["device"] as? String }
                == ["a-1", "b-2"])
        #expect(try d.fleetctl("alerts", ["--since", "2"]).map { $0["id"] as? Int } == [3, 4])
        #expect(
            try d.fleetctl("alerts", ["--since", "2023-11-14T22:15:00Z"]).map {
                $0["device"] as? String
            } == ["b-2", "b-2"])
        let bad = try runTool(
            try Binaries.path("fleetctl"), ["alerts", "--db", d.database, "--type", "nope"])
        #expect(bad.status != 0 && bad.err.contains("not an alert type"))

        // The status file: rewritten every second while running.
        Thread.sleep(forTimeInterval: 1.5)
        let status = try d.fleetctl("status")
        #expect(status.first?["state"] as? String == "running")
        #expect(status.first?["fixes_stored"] as? Int == 6)
        #expect((status.first?["rejected"] as? [String: Any])?["json/json_syntax"] as? Int == 1)
        let human = try runTool(try Binaries.path("fleetctl"), ["status", "--db", d.database])
        #expect(
            human.status == 0 && human.out.contains("fleetd running")
                && human.out.contains("json/json_syntax: 1"))
        #expect(d.stop() == 0)
        let after = try runTool(try Binaries.path("fleetctl"), ["status", "--db", d.database])
        #expect(after.out.contains("fleetd stopped"))
    }
}
