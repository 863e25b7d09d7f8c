import FleetSimCore
import FleetTestSupport
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// Groups of vehicles and the people limited to them, against a live
/// fleetd: every route of the OpenAPI document asked by an operator
/// limited to another group answers a vehicle outside it exactly as a
/// vehicle that does not exist (404 or an empty list, never a 403), lists
/// leave it out, the event stream never carries it; a driver sees one
/// vehicle and its trips; an admin sees everything.
@Suite(.offPool) struct GroupsEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    /// Logs `user` in (password `password-USER`): its session cookie.
    func login(_ a: APIEndToEndTests.APIDaemon, _ user: String) async throws -> [(String, String)] {
        let ok = try await a.http.send(
            .POST, "/api/v1/session", headers: [("Content-Type", "application/json")],
            body: #"{"user":"\#(user)","password":"password-\#(user)"}"#)
        guard ok.status == 200 else { throw E2EError("login \(user): \(ok.status) \(ok.body)") }
        let set = ok.headers.first(name: "Set-Cookie") ?? ""
        return [("Cookie", String(set.prefix { $0 != ";" }))]
    }

    func addUser(_ a: APIEndToEndTests.APIDaemon, _ name: String, _ args: [String]) throws {
        let u = try runTool(
            try Binaries.path("fleetctl"),
            ["users", "add", name, "--password-stdin", "--db", a.d.database] + args,
            stdin: "password-\(name)\n")
        guard u.status == 0 else { throw E2EError("users add \(name): \(u.err)") }
    }

    @Test func aUserLimitedToAGroupSeesNothingOfAnotherRouteByRoute() async throws {
        let a = try APIEndToEndTests.APIDaemon(
            trip: "start_distance_m = 200\nstop_duration_s = 120")
        let ctl = try Binaries.path("fleetctl")
        let admin = a.auth("admin") + [("Content-Type", "application/json")]
        // Groups by fleetctl and by the API; one vehicle in none.
        let add = try runTool(
            ctl, ["devices", "add", "van-n1", "--group", "North", "--db", a.d.database])
        #expect(add.status == 0, "\(add.err)")
        let put = try await a.http.send(
            .PUT, "/api/v1/devices/van-s1", headers: admin,
            body: #"{"name":"South van","group":"South"}"#)
        #expect(put.status == 200 && put.json["group"] as? String == "South", "\(put.body)")
        let badGroup = try await a.http.send(
            .PUT, "/api/v1/devices/van-x", headers: admin, body: #"{"group":" bad\n"}"#)
        #expect(badGroup.status == 422 && badGroup.body.contains("group"), "\(badGroup.body)")
        try addUser(a, "north", ["--role", "operator", "--group", "North"])
        try addUser(a, "drv", ["--role", "driver", "--device", "van-n1"])
        let refused = try runTool(
            ctl,
            [
                "users", "add", "boss", "--role", "admin", "--group", "North", "--password-stdin",
                "--db", a.d.database,
            ], stdin: "pw-boss-long\n")
        #expect(refused.status != 0 && refused.err.contains("viewers and operators"))

        // Each vehicle crosses the depot (an enter and an exit alert each),
        // stands 10 minutes (a trip, a stop) and drives on (a trip under way).
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        var seq = 1
        let drive: [(Int64, Double, Double)] = [
            (0, 47.95, 40), (10, 48.05, 40), (20, 48.15, 40), (200, 48.15, 0), (400, 48.15, 0),
            (600, 48.15, 0), (620, 48.2, 40), (640, 48.25, 40),
        ]
        for (k, device) in ["van-n1", "van-s1", "van-x"].enumerated() {
            for (s, lat, speed) in drive {
                let t = t0 + Int64(k) * 1_000_000 + s * 1000
                #expect(
                    exchange(
                        client,
                        [fixLine(seq, t, lat: lat, lon: 11.05, device: device, speed: speed)])
                        != nil)
                seq += 1
            }
        }
        let everything = try await a.http.get("/api/v1/alerts", a.auth("admin"))
        #expect(everything.items.count >= 6, "\(everything.body)")
        let hiddenAlert = try #require(
            everything.items.first { $0["device"] as? String == "van-s1" }?["id"] as? Int)

        let north = try await login(a, "north")
        let me = try await a.http.get("/api/v1/session", north)
        #expect(me.json["groups"] as? [String] == ["North"], "\(me.body)")
        let json = north + [("Content-Type", "application/json")]

        // Every route of the document, classified; a route added later fails here until it is.
        let doc = try await a.http.get("/api/v1/openapi.json")
        let paths = try #require(doc.json["paths"] as? [String: [String: Any]])
        let period = "from=2023-11-01T00:00:00Z&to=2023-12-01T00:00:00Z"
        let lists: [String: String] = [
            "GET /api/v1/devices": "/api/v1/devices",
            "GET /api/v1/positions/latest": "/api/v1/positions/latest",
            "GET /api/v1/alerts": "/api/v1/alerts",
            "GET /api/v1/trips": "/api/v1/trips",
            "GET /api/v1/reports/usage": "/api/v1/reports/usage?\(period)",
            "GET /api/v1/reports/stops": "/api/v1/reports/stops?\(period)&min_s=0",
        ]
        let others: Set<String> = [
            "GET /healthz", "GET /readyz", "GET /metrics", "GET /api/v1/openapi.json",
            "POST /api/v1/session", "GET /api/v1/session", "DELETE /api/v1/session",
            "GET /api/v1/fences", "PUT /api/v1/fences", "GET /api/v1/webhooks",
            "GET /api/v1/webhooks/{name}", "PUT /api/v1/webhooks/{name}",
            "DELETE /api/v1/webhooks/{name}", "GET /api/v1/status", "GET /api/v1/events",
            "POST /api/v1/alerts/{id}/ack", "GET /api/v1/users", "GET /api/v1/users/{name}",
            "PUT /api/v1/users/{name}", "DELETE /api/v1/users/{name}",
            "GET /api/v1/notifications", "GET /api/v1/notifications/{name}",
            "PUT /api/v1/notifications/{name}", "DELETE /api/v1/notifications/{name}",
        ]
        var checked = 0
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            for method in item.keys where method != "parameters" {
                let key = "\(method.uppercased()) \(path)"
                if let url = lists[key] {
                    let r = try await a.http.get(url, north)
                    #expect(r.status == 200, "\(key): \(r.status)")
                    #expect(r.body.contains("van-n1"), "\(key): \(r.body.prefix(300))")
                    #expect(
                        !r.body.contains("van-s1") && !r.body.contains("van-x"),
                        "\(key) shows another group's vehicle: \(r.body.prefix(300))")
                    checked += 1
                } else if path.hasPrefix("/api/v1/devices/{id}") {
                    // The hidden vehicle and one that never existed: the same answer.
                    func ask(_ id: String) async throws -> HTTPTestClient.Reply {
                        let p = path.replacingOccurrences(of: "{id}", with: id)
                            .replacingOccurrences(of: "{share}", with: "1")
                        let body =
                            method == "post" && p.hasSuffix("commands")
                            ? #"{"text":"getinfo"}"# : "{}"
                        return try await a.http.send(
                            HTTPMethod(rawValue: method.uppercased()), p, headers: json,
                            body: method == "get" || method == "delete" ? nil : body)
                    }
                    let hidden = try await ask("van-s1")
                    let none = try await ask("nosuch-1")
                    #expect(
                        hidden.status == none.status, "\(key): \(hidden.status) vs \(none.status)")
                    #expect(
                        hidden.status == 404 || hidden.status == 200, "\(key): \(hidden.status)")
                    #expect(
                        hidden.body.replacingOccurrences(of: "van-s1", with: "nosuch-1")
                            == none.body, "\(key): \(hidden.body) vs \(none.body)")
                    checked += 1
                } else {
                    #expect(others.contains(key), "\(key) is not classified by this test")
                }
            }
        }
        #expect(checked == lists.count + 12, "\(checked) routes checked")
        // Another group's alert cannot be acknowledged, nor confirmed to exist.
        let ackHidden = try await a.http.send(
            .POST, "/api/v1/alerts/\(hiddenAlert)/ack", headers: north)
        let ackNone = try await a.http.send(.POST, "/api/v1/alerts/99999/ack", headers: north)
        #expect(ackHidden.status == 404 && ackNone.status == 404)
        #expect(
            ackHidden.body.replacingOccurrences(of: "\(hiddenAlert)", with: "99999") == ackNone.body
        )
        // The whole fleet's status is not a group's.
        #expect(try await a.http.get("/api/v1/status", north).status == 403)
        // A limited operator edits its own vehicles and keeps them in its groups.
        let rename = try await a.http.send(
            .PUT, "/api/v1/devices/van-n1", headers: json, body: #"{"name":"North van"}"#)
        #expect(
            rename.status == 200 && rename.json["group"] as? String == "North", "\(rename.body)")
        let away = try await a.http.send(
            .PUT, "/api/v1/devices/van-n1", headers: json, body: #"{"group":"South"}"#)
        #expect(away.status == 422 && away.body.contains("North"), "\(away.body)")

        // The driver: its vehicle and its trips, nothing else.
        let drv = try await login(a, "drv")
        let mine = try await a.http.get("/api/v1/devices", drv)
        #expect(mine.items.compactMap { $0["device"] as? String } == ["van-n1"], "\(mine.body)")
        let latest = try await a.http.get("/api/v1/positions/latest", drv)
        #expect(latest.items.compactMap { $0["device"] as? String } == ["van-n1"])
        #expect(try await a.http.get("/api/v1/devices/van-n1/positions", drv).status == 200)
        #expect(try await a.http.get("/api/v1/devices/van-s1/positions", drv).status == 404)
        #expect(try await a.http.get("/api/v1/alerts", drv).status == 403)
        #expect(try await a.http.get("/api/v1/fences", drv).status == 403)
        let trips = try await a.http.get("/api/v1/trips", drv)
        #expect(trips.status == 200 && !trips.body.contains("van-s1"))

        // The admin sees every vehicle with its group.
        let all = try await a.http.get("/api/v1/devices", a.auth("admin"))
        let groups = Dictionary(
            uniqueKeysWithValues: all.items.map {
                ($0["device"] as? String ?? "", $0["group"] as? String ?? "-")
            })
        #expect(groups == ["van-n1": "North", "van-s1": "South", "van-x": "-"], "\(all.body)")

        // The live stream: the group's vehicles only, positions one by one.
        let http = a.http
        let seenNorth = Mutex(false)
        async let stream = http.events(
            "/api/v1/events?positions=batch", headers: north, timeout: 120
        ) { seen in
            let done = seen.contains {
                $0.event == "position" && $0.json["device"] as? String == "van-n1"
            }
            if done { seenNorth.withLock { $0 = true } }
            return !done
        }
        var round: Int64 = 0
        while !seenNorth.withLock({ $0 }), round < 200 {
            let t = t0 + 5_000_000 + round * 2000
            for device in ["van-s1", "van-x", "van-n1"] {
                #expect(
                    exchange(client, [fixLine(seq, t, lat: 48.05, lon: 11.05, device: device)])
                        != nil)
                seq += 1
            }
            round += 1
            try await Task.sleep(for: .milliseconds(300))
        }
        let (status, events) = try await stream
        #expect(status == 200)
        #expect(events.contains { $0.event == "position" })
        #expect(
            !events.contains {
                $0.data.contains("van-s1") || $0.data.contains("van-x") || $0.event == "positions"
            }, "\(events.map(\.data))")

        // Moved to another group by fleetctl: a new login sees that group instead.
        let moved = try runTool(ctl, ["users", "groups", "north", "South", "--db", a.d.database])
        #expect(moved.status == 0 && moved.out.contains("groups South"), "\(moved.err)")
        let again = try await login(a, "north")
        let now = try await a.http.get("/api/v1/devices", again)
        #expect(now.items.compactMap { $0["device"] as? String } == ["van-s1"], "\(now.body)")
        let audit = try a.d.fleetctl("audit").compactMap { $0["action"] as? String }
        #expect(audit.contains("user.groups") && audit.contains("device.put"))
        #expect(a.d.stop() == 0)
    }

    /// A fence limited to a group raises its alerts for that group's
    /// vehicles only, and only that group's users (and those without a
    /// limit) see it; a fence for every vehicle is everyone's.
    @Test func aFenceLimitedToAGroupAlertsForItsVehiclesAndIsSeenByItsPeople() async throws {
        let fences = """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","id":"depot","properties":{"name":"Depot"},
              "geometry":{"type":"Polygon","coordinates":[[[11.0,48.0],[11.1,48.0],[11.1,48.1],[11.0,48.1],[11.0,48.0]]]}},
             {"type":"Feature","id":"north-yard","properties":{"name":"North yard","groups":["North"]},
              "geometry":{"type":"Polygon","coordinates":[[[11.0,48.02],[11.1,48.02],[11.1,48.08],[11.0,48.08],[11.0,48.02]]]}}
            ]}
            """
        let a = try APIEndToEndTests.APIDaemon(fences: fences)
        let admin = a.auth("admin") + [("Content-Type", "application/json")]
        // One vehicle's group set by the API (at once), the other's by fleetctl before the first fix.
        let ctl = try Binaries.path("fleetctl")
        #expect(
            try runTool(
                ctl, ["devices", "add", "van-s1", "--group", "South", "--db", a.d.database]
            )
            .status == 0)
        let put = try await a.http.send(
            .PUT, "/api/v1/devices/van-n1", headers: admin, body: #"{"group":"North"}"#)
        #expect(put.status == 200, "\(put.body)")
        try addUser(a, "nora", ["--role", "viewer", "--group", "North"])
        try addUser(a, "sam", ["--role", "viewer", "--group", "South"])
        // fleetctl's change reaches the running daemon within DeviceGroups.refreshS.
        try await Task.sleep(for: .seconds(11))
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        var seq = 1
        for (k, device) in ["van-n1", "van-s1"].enumerated() {
            for (j, lat) in [47.95, 48.05, 48.15].enumerated() {
                let t = t0 + Int64(k) * 100_000 + Int64(j) * 10_000
                #expect(
                    exchange(client, [fixLine(seq, t, lat: lat, lon: 11.05, device: device)]) != nil
                )
                seq += 1
            }
        }
        let alerts = try await a.http.get("/api/v1/alerts?type=geofence_enter", a.auth("admin"))
        let entered = Set(
            alerts.items.map { "\($0["device"] as? String ?? "") \($0["fence"] as? String ?? "")" })
        #expect(entered == ["van-n1 depot", "van-n1 north-yard", "van-s1 depot"], "\(alerts.body)")
        // Each group's people see the fences for everyone and their own.
        func fenceIds(_ who: [(String, String)]) async throws -> [String] {
            let r = try await a.http.get("/api/v1/fences", who)
            let features = r.json["features"] as? [[String: Any]] ?? []
            return features.compactMap { $0["id"] as? String }
        }
        #expect(try await fenceIds(try await login(a, "nora")) == ["depot", "north-yard"])
        #expect(try await fenceIds(try await login(a, "sam")) == ["depot"])
        #expect(try await fenceIds(a.auth("viewer")) == ["depot", "north-yard"])
        // A group that is no group name is refused with the fence named.
        let bad = try await a.http.send(
            .PUT, "/api/v1/fences",
            headers: a.auth("admin") + [("Content-Type", "application/geo+json")],
            body: fences.replacingOccurrences(of: #"["North"]"#, with: #"["North", " x"]"#))
        #expect(
            bad.status == 422 && bad.body.contains("north-yard") && bad.body.contains("groups"),
            "\(bad.body)")
        #expect(a.d.stop() == 0)
    }
}
