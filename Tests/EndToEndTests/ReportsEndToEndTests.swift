import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// The console's API routes against a live fleetd: the usage report (JSON
/// equal to `fleetctl report usage --json`, CSV as a download, bad periods
/// named), the live map's newest positions paged by device, a device's
/// fences, and `fleetctl map` on the same data.
@Suite(.offPool) struct ReportsEndToEndTests {
    let t0: Int64 = 1_700_000_000_000  // 2023-11-14T22:13:20Z

    /// The API's report is what `fleetctl ARGS --json` prints, but for the
    /// time each was made.
    func expectSame(_ report: HTTPTestClient.Reply, fleetctl args: [String]) throws {
        let ctl = try runTool(try Binaries.path("fleetctl"), args + ["--json"])
        #expect(ctl.status == 0, "\(ctl.err)")
        var mine = try JSONSerialization.jsonObject(with: Data(ctl.out.utf8)) as? [String: Any]
        var theirs = report.json
        mine?["generated_at"] = nil
        theirs["generated_at"] = nil
        #expect(
            NSDictionary(dictionary: mine ?? [:]).isEqual(to: theirs),
            "fleetctl and the API differ:\n\(ctl.out)\n\(report.body)")
    }

    /// The stops report: a van drives, stands 20 minutes, drives, stands
    /// again (still there): two stops, the first between its trips, the
    /// second ongoing; the API's JSON is fleetctl's; CSV as a download; a
    /// bad `min_s` named.
    @Test func stopsReportThroughTheAPIAndFleetctl() async throws {
        let a = try APIEndToEndTests.APIDaemon(trip: "")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        var seq = 0
        var t = t0
        var lat = 47.5
        func send(_ moving: Bool) {
            seq += 1
            if moving { lat += 0.0045 }  // 500 m in 30 s
            #expect(
                exchange(
                    client,
                    [
                        fixLine(
                            seq, t, lat: lat, lon: 11.5, device: "van-7", speed: moving ? 60 : 0)
                    ]) != nil)
            t += 30_000
        }
        for _ in 0..<4 { send(false) }
        for _ in 0..<10 { send(true) }
        for _ in 0..<40 { send(false) }  // 20 minutes
        for _ in 0..<10 { send(true) }
        for _ in 0..<20 { send(false) }  // 10 minutes, and still there
        let v = a.auth("viewer")
        let from = "2023-11-14T00:00:00Z", to = "2023-11-15T00:00:00Z"
        let report = try await a.http.get(
            "/api/v1/reports/stops?from=\(from)&to=\(to)&min_s=300", v)
        #expect(report.status == 200, "\(report.body)")
        let stops = report.json["stops"] as? [[String: Any]] ?? []
        #expect(stops.count == 2, "\(report.body)")
        if stops.count == 2 {
            let first = stops[0], second = stops[1]
            #expect(first["device"] as? String == "van-7" && first["ongoing"] as? Bool == false)
            let d1 = first["duration_s"] as? Double ?? 0
            #expect(d1 >= 17 * 60 && d1 <= 23 * 60, "\(first)")
            #expect(second["ongoing"] as? Bool == true)
            let d2 = second["duration_s"] as? Double ?? 0
            #expect(d2 >= 7 * 60 && d2 <= 11 * 60, "\(second)")
            #expect((second["lat"] as? Double ?? 0) > (first["lat"] as? Double ?? 0))
        }
        try expectSame(
            report,
            fleetctl: [
                "report", "stops", "--db", a.d.database, "--from", from, "--to", to, "--min", "300",
            ])
        let table = try runTool(
            try Binaries.path("fleetctl"),
            ["report", "stops", "--db", a.d.database, "--from", from, "--to", to])
        #expect(table.status == 0 && table.out.contains("(still there)"), "\(table.out)")
        print(table.out)
        // Longer stops only: the 10-minute one goes.
        let long = try await a.http.get(
            "/api/v1/reports/stops?from=\(from)&to=\(to)&min_s=900", v)
        #expect((long.json["stops"] as? [Any])?.count == 1)
        let csv = try await a.http.get(
            "/api/v1/reports/stops?from=\(from)&to=\(to)&format=csv", v)
        #expect(
            csv.headers.first(name: "content-disposition")
                == #"attachment; filename="stops-20231114-20231115.csv""#)
        #expect(csv.body.split(separator: "\r\n").count == 3)
        for query in ["min_s=-1", "min_s=abc", "min_s=1e9"] {
            let bad = try await a.http.get(
                "/api/v1/reports/stops?from=\(from)&to=\(to)&\(query)", v)
            #expect(bad.status == 400 && bad.body.contains("min_s"), "\(query): \(bad.body)")
        }
        #expect(try await a.http.get("/api/v1/reports/stops?from=\(from)&to=\(to)").status == 401)
        #expect(a.d.stop() == 0)
    }

    /// A report that would hold more trips than `http.report_max_trips` is
    /// refused, naming the setting; one vehicle's smaller one is made.
    @Test func aReportOverTheTripLimitIsRefusedNamingIt() async throws {
        let a = try APIEndToEndTests.APIDaemon(httpExtra: "report_max_trips = 1", trip: "")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        var seq = 0
        for device in ["van-1", "van-2"] {
            var lat = 47.5
            for k in 0..<30 {
                seq += 1
                let moving = (4..<14).contains(k)
                if moving { lat += 0.0045 }
                let line = fixLine(
                    seq, t0 + Int64(k) * 30_000, lat: lat, lon: 11.5, device: device,
                    speed: moving ? 60 : 0)
                #expect(exchange(client, [line]) != nil)
            }
        }
        #expect(try a.d.fleetctl("trips").count == 2)
        let v = a.auth("viewer")
        let period = "from=2023-11-14T00:00:00Z&to=2023-11-15T00:00:00Z"
        for kind in ["stops", "usage"] {
            let all = try await a.http.get("/api/v1/reports/\(kind)?\(period)", v)
            #expect(
                all.status == 422 && all.body.contains("http.report_max_trips"),
                "\(kind): \(all.status) \(all.body)")
            let one = try await a.http.get("/api/v1/reports/\(kind)?\(period)&device=van-1", v)
            #expect(one.status == 200, "\(kind) of one vehicle: \(one.body)")
        }
        #expect(a.d.stop() == 0)
    }

    @Test func usageReportLatestPositionsAndAMap() async throws {
        let a = try APIEndToEndTests.APIDaemon()
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        // truck-1 drives into the depot and stays; truck-2 and truck-3 stay out.
        for (i, lat) in [47.95, 48.05, 48.06].enumerated() {
            #expect(
                exchange(client, [fixLine(i + 1, t0 + Int64(i) * 60_000, lat: lat, lon: 11.05)])
                    != nil)
        }
        for (n, device) in ["truck-2", "truck-3"].enumerated() {
            #expect(
                exchange(
                    client,
                    [fixLine(10 + n, t0 + 30_000, lat: 47.5, lon: 11.5, device: device, speed: 0)])
                    != nil)
        }
        let v = a.auth("viewer")
        let from = "2023-11-14T00:00:00Z", to = "2023-11-15T00:00:00Z"

        // JSON: the same report fleetctl makes (but for the time it was made).
        let report = try await a.http.get("/api/v1/reports/usage?from=\(from)&to=\(to)", v)
        #expect(report.status == 200)
        let rows = report.json["vehicles"] as? [[String: Any]] ?? []
        #expect(rows.map { $0["device"] as? String } == ["truck-1", "truck-2", "truck-3"])
        let truck1 = try #require(rows.first)
        #expect(truck1["fixes"] as? Int == 3 && truck1["max_speed_kmh"] as? Double == 40)
        let visits = truck1["fence_visits"] as? [[String: Any]] ?? []
        #expect(visits.count == 1 && visits.first?["fence"] as? String == "depot")
        #expect(visits.first?["visits"] as? Int == 1)
        try expectSame(
            report,
            fleetctl: ["report", "usage", "--db", a.d.database, "--from", from, "--to", to])

        // CSV, asked for by Accept or by format=csv (a download).
        let csv = try await a.http.send(
            .GET, "/api/v1/reports/usage?from=\(from)&to=\(to)&device=truck-1",
            headers: v + [("Accept", "text/csv")])
        #expect(csv.headers.first(name: "content-type")?.hasPrefix("text/csv") == true)
        #expect(
            csv.headers.first(name: "content-disposition")
                == #"attachment; filename="usage-20231114-20231115.csv""#)
        let lines = csv.body.split(separator: "\r\n")
        #expect(
            lines.count == 3 && lines[1].hasPrefix("truck-1,,0,0,0,")
                && lines[2].hasPrefix(",total,"))
        let download = try await a.http.get(
            "/api/v1/reports/usage?from=\(from)&to=\(to)&format=csv", v)
        #expect(download.body.split(separator: "\r\n").count == 5)

        // A period with no data is zeros, for every vehicle it lists; bad periods are named.
        let empty = try await a.http.get(
            "/api/v1/reports/usage?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z", v)
        #expect(empty.status == 200 && (empty.json["vehicles"] as? [Any])?.isEmpty == true)
        #expect((empty.json["totals"] as? [String: Any])?["distance_m"] as? Double == 0)
        for (query, parameter) in [
            ("from=\(to)&to=\(from)", "to"), ("to=\(to)", "from"), ("from=\(from)", "to"),
            ("from=\(from)&to=\(to)&format=xml", "format"),
        ] {
            let bad = try await a.http.get("/api/v1/reports/usage?\(query)", v)
            #expect(bad.status == 400 && bad.body.contains(parameter), "\(query): \(bad.body)")
        }
        let noLogin = try await a.http.get("/api/v1/reports/usage?from=\(from)&to=\(to)")
        #expect(noLogin.status == 401)

        // The live map's start: every vehicle's newest position, paged by device.
        var seen: [String] = []
        var next: String? = "/api/v1/positions/latest?limit=2"
        while let path = next {
            let page = try await a.http.get(path, v)
            #expect(page.status == 200)
            seen += page.items.compactMap { $0["device"] as? String }
            for item in page.items where item["device"] as? String == "truck-1" {
                let p = item["position"] as? [String: Any]
                #expect(
                    p?["lat"] as? Double == 48.06
                        && p?["time"] as? String == "2023-11-14T22:15:20.000Z")
            }
            next = page.json["next"] as? String
        }
        #expect(seen == ["truck-1", "truck-2", "truck-3"])

        // A device's fences: the depot, where truck-1 is.
        let truck = try await a.http.get("/api/v1/devices/truck-1", v)
        #expect(truck.json["fences"] as? [String] == ["depot"])
        let other = try await a.http.get("/api/v1/devices/truck-2", v)
        #expect(other.json["fences"] as? [String] == [])

        // fleetctl map on the same data: an SVG with the track and the depot.
        let svg = a.d.dir.appendingPathComponent("truck-1.svg").path
        let fences = a.d.dir.appendingPathComponent("fences.geojson").path
        let map = try runTool(
            try Binaries.path("fleetctl"),
            [
                "map", "--db", a.d.database, "--device", "truck-1", "--from", from, "--to", to,
                "--fences", fences, "-o", svg,
            ])
        #expect(map.status == 0, "\(map.err)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("class=\"track\"") && text.contains("data-name=\"Depot\""))
        #expect(text.contains("geofence_enter depot"))
        let none = try runTool(
            try Binaries.path("fleetctl"),
            [
                "map", "--db", a.d.database, "--device", "truck-1", "--from",
                "2020-01-01T00:00:00Z", "--to", "2020-01-02T00:00:00Z", "-o", svg,
            ])
        #expect(none.status == 1 && none.err.contains("no accepted positions"))
        #expect(a.d.stop() == 0)
    }
}
