import FleetSimCore
import FleetTestSupport
import Foundation
import NIOHTTP1
import Testing

/// fleetd's HTTP API as its users meet it: a real daemon, real HTTP on
/// loopback (AsyncHTTPClient), users and tokens made with `fleetctl`.
@Suite(.offPool) struct APIEndToEndTests {
    let t0: Int64 = 1_700_000_000_000

    /// A daemon with the API and the OsmAnd door on kernel-chosen ports, and
    /// a user of each role (`viewer`, `operator`, `admin`, password
    /// `password-<role>`) and a token of each role.
    final class APIDaemon {
        let d: DaemonProcess
        let http: HTTPTestClient
        let osmand: HTTPTestClient
        var tokens: [String: String] = [:]

        /// `over`: restart on that daemon's folder (its users and tokens kept).
        init(
            fences: String? = depotFences, extra: String = "", httpExtra: String = "",
            trip: String = "start_distance_m = 1000000", over: APIDaemon? = nil,
            geofencesExtra: String = ""
        ) throws {
            d = try DaemonProcess(
                fences: fences, extraConfig: extra, dir: over?.d.dir,
                geofencesExtra: geofencesExtra,
                tracking: "exit_confirm_fixes = 1\njump_speed_kmh = 0", trip: trip,
                http: "127.0.0.1:0", osmand: "127.0.0.1:0", httpExtra: httpExtra)
            http = HTTPTestClient(port: d.ports["http"] ?? 0)
            osmand = HTTPTestClient(port: d.ports["osmand"] ?? 0)
            if let over {
                tokens = over.tokens
                return
            }
            let ctl = try Binaries.path("fleetctl")
            for role in ["viewer", "operator", "admin"] {
                let u = try runTool(
                    ctl,
                    ["users", "add", role, "--role", role, "--password-stdin", "--db", d.database],
                    stdin: "password-\(role)\n")
                guard u.status == 0 else { throw E2EError("users add: \(u.err)") }
                let t = try runTool(
                    ctl, ["tokens", "add", "\(role)-bot", "--role", role, "--db", d.database])
                guard t.status == 0 else { throw E2EError("tokens add: \(t.err)") }
                tokens[role] = t.out.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }

        func auth(_ role: String) -> [(String, String)] { HTTPTestClient.bearer(tokens[role]!) }
    }

    @Test func everyRouteNeedsCredentialsAndTheRightRole() async throws {
        let a = try APIDaemon()
        #expect(try await a.http.get("/healthz").status == 200)
        #expect(try await a.http.get("/readyz").status == 200)
        // Without credentials: 401 with WWW-Authenticate, everywhere else.
        let routes: [(HTTPMethod, String, String)] = [
            (.GET, "/api/v1/devices", "viewer"), (.GET, "/api/v1/devices/truck-1", "viewer"),
            (.PUT, "/api/v1/devices/truck-1", "operator"),
            (.DELETE, "/api/v1/devices/truck-1", "operator"),
            (.GET, "/api/v1/devices/truck-1/positions", "viewer"),
            (.GET, "/api/v1/devices/truck-1/track.gpx", "viewer"),
            (.GET, "/api/v1/alerts", "viewer"),
            (.POST, "/api/v1/alerts/1/ack", "operator"), (.GET, "/api/v1/trips", "viewer"),
            (.GET, "/api/v1/fences", "viewer"), (.PUT, "/api/v1/fences", "admin"),
            (.GET, "/api/v1/status", "viewer"), (.GET, "/api/v1/events", "viewer"),
            (.GET, "/api/v1/session", "viewer"),
        ]
        for (method, path, role) in routes {
            let r = try await a.http.send(method, path)
            #expect(r.status == 401, "\(method) \(path)")
            #expect(r.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(r.json["error"] as? String == "unauthorized")
            // A role below the route's: 403 naming the role needed.
            if role != "viewer" {
                let low = role == "admin" ? "operator" : "viewer"
                let f = try await a.http.send(
                    method, path, headers: a.auth(low) + [("Content-Type", "application/json")],
                    body: "{}")
                #expect(f.status == 403, "\(method) \(path) as \(low)")
                #expect((f.json["detail"] as? String)?.contains(role) == true)
            }
        }
        // A wrong token is refused as such.
        #expect(
            try await a.http.get("/api/v1/devices", HTTPTestClient.bearer("fltk_nope")).status
                == 401)
    }

    @Test func loginSessionsLogoutAndRateLimit() async throws {
        let a = try APIDaemon()
        let json = [("Content-Type", "application/json")]
        let bad = try await a.http.send(
            .POST, "/api/v1/session", headers: json,
            body: #"{"user":"operator","password":"wrong-one"}"#)
        #expect(bad.status == 401 && bad.json["error"] as? String == "login failed")
        let ok = try await a.http.send(
            .POST, "/api/v1/session", headers: json,
            body: #"{"user":"operator","password":"password-operator"}"#)
        #expect(ok.status == 200 && ok.json["role"] as? String == "operator")
        let setCookie = ok.headers.first(name: "Set-Cookie") ?? ""
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
        #expect(!setCookie.contains("Secure"))
        let cookie = [("Cookie", String(setCookie.prefix { $0 != ";" }))]
        let me = try await a.http.get("/api/v1/session", cookie)
        #expect(me.json["user"] as? String == "operator")
        #expect(try await a.http.get("/api/v1/devices", cookie).status == 200)
        // Behind a TLS proxy the cookie is Secure.
        let tls = try await a.http.send(
            .POST, "/api/v1/session", headers: json + [("X-Forwarded-Proto", "https")],
            body: #"{"user":"viewer","password":"password-viewer"}"#)
        #expect(tls.headers.first(name: "Set-Cookie")?.contains("Secure") == true)
        // Logging out ends the session.
        #expect(try await a.http.send(.DELETE, "/api/v1/session", headers: cookie).status == 200)
        #expect(try await a.http.get("/api/v1/devices", cookie).status == 401)
        // Bad login bodies: every problem listed.
        let invalid = try await a.http.send(
            .POST, "/api/v1/session", headers: json, body: #"{"user":3,"x":1}"#)
        #expect(invalid.status == 422 && (invalid.json["problems"] as? [String])?.count == 3)
        #expect(
            try await a.http.send(.POST, "/api/v1/session", headers: json, body: "{").status == 400)
        #expect(try await a.http.send(.POST, "/api/v1/session", body: "user=a").status == 415)
        // Five failures for a user: the sixth attempt is refused before checking, with Retry-After.
        for _ in 0..<4 {
            _ = try await a.http.send(
                .POST, "/api/v1/session", headers: json,
                body: #"{"user":"admin","password":"guess-1234"}"#)
        }
        _ = try await a.http.send(
            .POST, "/api/v1/session", headers: json,
            body: #"{"user":"admin","password":"guess-1234"}"#)
        let limited = try await a.http.send(
            .POST, "/api/v1/session", headers: json,
            body: #"{"user":"admin","password":"password-admin"}"#)
        #expect(limited.status == 429)
        #expect(Int(limited.headers.first(name: "Retry-After") ?? "") ?? 0 > 0)
        // The password never reaches the log.
        #expect(!a.d.log.contains("password-admin") && !a.d.log.contains("guess-1234"))
        // Logins, failed logins and logouts are audited with the peer; an
        // attempt the limiter refused is not (it checked no password).
        let audit = try a.d.fleetctl("audit").filter {
            ($0["action"] as? String)?.hasPrefix("session.") == true
        }
        func count(_ action: String, _ target: String) -> Int {
            audit.filter { $0["action"] as? String == action && $0["target"] as? String == target }
                .count
        }
        #expect(count("session.login", "operator") == 1)
        #expect(count("session.login", "viewer") == 1)
        #expect(count("session.logout", "operator") == 1)
        #expect(count("session.login_failed", "operator") == 1)
        #expect(count("session.login_failed", "admin") == 5)
        #expect(count("session.login", "admin") == 0)
        #expect(audit.allSatisfy { ($0["detail"] as? String) == "from 127.0.0.1" })
        #expect(
            audit.first { $0["action"] as? String == "session.login" }?["actor"] as? String
                == "user:operator")
        // A user name with a newline cannot forge a line of fleetctl's table.
        _ = try await a.http.send(
            .POST, "/api/v1/session", headers: json,
            body: #"{"user":"ev\nil","password":"guess-1234"}"#)
        let table = try runTool(try Binaries.path("fleetctl"), ["audit"] + a.d.databaseArgs)
        #expect(table.status == 0)
        #expect(table.out.contains(#"session.login_failed ev\nil"#), "\(table.out)")
        #expect(!table.out.split(separator: "\n").contains { $0.hasPrefix("il") })
    }

    @Test func devicesAlertsAcknowledgementsAndTheAuditLog() async throws {
        let a = try APIDaemon()
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        let lines = [
            fixLine(1, t0, lat: 47.95, lon: 11.05), fixLine(2, t0 + 10_000, lat: 48.05, lon: 11.05),
            fixLine(3, t0 + 20_000, lat: 48.15, lon: 11.05),
        ]
        for line in lines { #expect(exchange(client, [line]) != nil) }
        let alerts = try await a.http.get("/api/v1/alerts", a.auth("viewer"))
        #expect(alerts.status == 200)
        #expect(alerts.items.map { $0["type"] as? String } == ["geofence_enter", "geofence_exit"])
        #expect(alerts.json.keys.contains("next"))
        // The same records as fleetctl's.
        let ctl = try a.d.fleetctl("alerts")
        #expect(alerts.items.map { $0["id"] as? Int } == ctl.map { $0["id"] as? Int })
        // Filters and paging.
        let exits = try await a.http.get(
            "/api/v1/alerts?type=geofence_exit&fence=depot", a.auth("viewer"))
        #expect(exits.items.count == 1)
        let page = try await a.http.get("/api/v1/alerts?limit=1", a.auth("viewer"))
        #expect(page.items.count == 1)
        let next = try #require(page.json["next"] as? String)
        #expect(
            try await a.http.get(next, a.auth("viewer")).items.map { $0["type"] as? String } == [
                "geofence_exit"
            ])
        // Newest first, a page at a time (`before` the cursor), filters as ever.
        let newest = try await a.http.get("/api/v1/alerts?order=newest&limit=1", a.auth("viewer"))
        #expect(newest.items.map { $0["id"] as? Int } == [2])
        let older = try #require(newest.json["next"] as? String)
        #expect(older.contains("before=2") && older.contains("order=newest"))
        let second = try await a.http.get(older, a.auth("viewer"))
        #expect(second.items.map { $0["id"] as? Int } == [1])
        let last = try #require(second.json["next"] as? String)
        #expect(try await a.http.get(last, a.auth("viewer")).items.isEmpty)
        #expect(
            try await a.http.get("/api/v1/alerts?order=newest&before=2", a.auth("viewer")).items
                .map { $0["type"] as? String } == ["geofence_enter"])
        #expect(
            try await a.http.get(
                "/api/v1/alerts?order=newest&type=geofence_enter&since=1", a.auth("viewer")
            ).items.isEmpty)
        #expect(
            try await a.http.get("/api/v1/alerts?before=2", a.auth("viewer")).items.map {
                $0["id"] as? Int
            } == [1])
        for (bad, name) in [
            ("order=latest", "order"), ("before=-1", "before"), ("order=newest&before=x", "before"),
        ] {
            let r = try await a.http.get("/api/v1/alerts?\(bad)", a.auth("viewer"))
            #expect(
                r.status == 400 && (r.json["detail"] as? String)?.hasPrefix(name) == true,
                "\(bad): \(r.body)")
        }
        // Acknowledge (operator): who and when, shown in the alert's JSON.
        let ack = try await a.http.send(.POST, "/api/v1/alerts/2/ack", headers: a.auth("operator"))
        #expect(ack.status == 200 && ack.json["acked_by"] as? String == "token:operator-bot")
        #expect(ack.json["acked_at"] is String)
        #expect(
            try await a.http.send(.POST, "/api/v1/alerts/99/ack", headers: a.auth("operator"))
                .status == 404)
        // Register a device, read it back, unregister it.
        let put = try await a.http.send(
            .PUT, "/api/v1/devices/truck-1",
            headers: a.auth("operator") + [("Content-Type", "application/json")],
            body: #"{"name":"Van 7","plate":"M-FL 7"}"#)
        #expect(
            put.status == 200 && put.json["registered"] as? Bool == true
                && put.json["name"] as? String == "Van 7")
        let one = try await a.http.get("/api/v1/devices/truck-1", a.auth("viewer"))
        #expect(one.json["plate"] as? String == "M-FL 7" && one.json["positions"] as? Int == 3)
        #expect((one.json["last_position"] as? [String: Any])?["lat"] as? Double == 48.15)
        let invalid = try await a.http.send(
            .PUT, "/api/v1/devices/truck-1",
            headers: a.auth("operator") + [("Content-Type", "application/json")],
            body: #"{"name":7,"colour":"red"}"#)
        #expect(invalid.status == 422 && (invalid.json["problems"] as? [String])?.count == 2)
        #expect(try await a.http.get("/api/v1/devices/nobody", a.auth("viewer")).status == 404)
        #expect(try await a.http.get("/api/v1/devices/bad%20id", a.auth("viewer")).status == 400)
        // The list, a page at a time, by id.
        for (i, name) in ["truck-3", "truck-2"].enumerated() {
            #expect(
                exchange(client, [fixLine(10 + i, t0 + 30_000, lat: 47.9, lon: 11.0, device: name)])
                    != nil)
        }
        let firstPage = try await a.http.get("/api/v1/devices?limit=2", a.auth("viewer"))
        #expect(firstPage.items.map { $0["device"] as? String } == ["truck-1", "truck-2"])
        let rest = try await a.http.get(
            try #require(firstPage.json["next"] as? String), a.auth("viewer"))
        #expect(rest.items.map { $0["device"] as? String } == ["truck-3"])
        #expect(rest.json["next"] is NSNull)
        #expect(
            try await a.http.send(.DELETE, "/api/v1/devices/truck-1", headers: a.auth("operator"))
                .status == 200)
        #expect(
            try await a.http.send(.DELETE, "/api/v1/devices/truck-1", headers: a.auth("operator"))
                .status == 404)
        // Every change is in the audit log, with who made it.
        let audit = try a.d.fleetctl("audit")
        let api = audit.filter { ($0["actor"] as? String)?.hasPrefix("token:") == true }
        #expect(
            api.map { $0["action"] as? String } == ["alert.ack", "device.put", "device.delete"])
        #expect(api.allSatisfy { $0["actor"] as? String == "token:operator-bot" })
    }

    @Test func positionsInEveryFormatTripsStatusAndBadRequests() async throws {
        let a = try APIDaemon(httpExtra: "max_body_bytes = 1048576")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        for i in 0..<5 {
            #expect(
                exchange(
                    client,
                    [
                        fixLine(
                            i + 1, t0 + Int64(i) * 10_000, lat: 47.9 + Double(i) * 0.001, lon: 11.05
                        )
                    ]) != nil)
        }
        let v = a.auth("viewer")
        let all = try await a.http.get("/api/v1/devices/truck-1/positions", v)
        #expect(all.items.count == 5)
        let window = try await a.http.get(
            "/api/v1/devices/truck-1/positions?from=2023-11-14T22:13:30Z&to=\(t0 + 40_000)", v)
        #expect(
            window.items.map { $0["time"] as? String } == [
                "2023-11-14T22:13:30.000Z", "2023-11-14T22:13:40.000Z", "2023-11-14T22:13:50.000Z",
            ])
        let paged = try await a.http.get("/api/v1/devices/truck-1/positions?limit=2", v)
        #expect(paged.items.count == 2)
        let rest = try await a.http.get(try #require(paged.json["next"] as? String), v)
        #expect(rest.items.first?["time"] as? String == "2023-11-14T22:13:40.000Z")
        let geo = try await a.http.get(
            "/api/v1/devices/truck-1/positions", v + [("Accept", "application/geo+json")])
        #expect(geo.headers.first(name: "Content-Type") == "application/geo+json")
        let feature = (geo.json["features"] as? [[String: Any]])?.first
        let geometry = feature?["geometry"] as? [String: Any]
        #expect(geometry?["type"] as? String == "LineString")
        #expect((geometry?["coordinates"] as? [[Double]])?.first == [11.05, 47.9])
        let csv = try await a.http.get(
            "/api/v1/devices/truck-1/positions", v + [("Accept", "text/csv")])
        let rows = csv.body.split(separator: "\r\n")
        #expect(rows.count == 6 && rows[0].hasPrefix("device,time,lat,lon"))
        #expect(rows[1] == "truck-1,2023-11-14T22:13:20.000Z,47.9,11.05,40,90,512,,,,true,-")
        let gpx = try await a.http.get("/api/v1/devices/truck-1/track.gpx", v)
        #expect(
            gpx.body.contains(#"<gpx version="1.1""#)
                && gpx.body.components(separatedBy: "<trkpt").count == 6)
        let status = try await a.http.get("/api/v1/status", v)
        #expect(
            status.json["fixes_stored"] as? Int == 5 && status.json["state"] as? String == "running"
        )
        #expect(try await a.http.get("/api/v1/trips?device=truck-1", v).status == 200)
        // Bad input: each gets a clear error naming what is wrong.
        let unknown = try await a.http.get("/api/v1/alerts?colour=red", v)
        #expect(
            unknown.status == 400
                && (unknown.json["detail"] as? String)?.hasPrefix("colour") == true)
        let badTime = try await a.http.get("/api/v1/devices/truck-1/positions?from=yesterday", v)
        #expect(
            badTime.status == 400 && (badTime.json["detail"] as? String)?.hasPrefix("from") == true)
        #expect(try await a.http.get("/api/v1/alerts?limit=0", v).status == 400)
        #expect(try await a.http.get("/api/v1/alerts?limit=1&limit=2", v).status == 400)
        #expect(try await a.http.get("/api/v1/nothing", v).status == 404)
        let wrongMethod = try await a.http.send(.PATCH, "/api/v1/alerts", headers: v)
        #expect(wrongMethod.status == 405 && wrongMethod.headers.first(name: "Allow") == "GET")
        let big = [UInt8](repeating: 0x20, count: 2 << 20)
        let tooBig = try await a.http.send(
            .PUT, "/api/v1/fences",
            headers: a.auth("admin") + [("Content-Type", "application/json")], bytes: big)
        #expect(tooBig.status == 413)
        // Ingest went on beside all of it.
        #expect(exchange(client, [fixLine(9, t0 + 90_000, lat: 47.95, lon: 11.05)]) != nil)
    }

    @Test func tripsFinishedAndUnderWayPagedByCursorAndKeptOverARestart() async throws {
        let a = try APIDaemon(trip: "start_distance_m = 200\nstop_duration_s = 120")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        var seq = 0
        var t = t0
        func send(_ lat: Double) {
            seq += 1
            #expect(exchange(client, [fixLine(seq, t, lat: lat, lon: 11.05)]) != nil)
            t += 10_000
        }
        // Parked; twice 1.2 km north and still for 150 s (a trip each); then off again.
        send(47.9)
        var lat = 47.9
        for _ in 0..<2 {
            for _ in 1...4 {
                lat += 0.003
                send(lat)
            }
            for _ in 0..<15 { send(lat) }
        }
        for _ in 1...3 {
            lat += 0.003
            send(lat)
        }
        let v = a.auth("viewer")
        let all = try await a.http.get("/api/v1/trips?device=truck-1", v)
        #expect(all.items.map { $0["open"] as? Bool } == [false, false, true])
        #expect(all.json["next"] is NSNull)
        let done = try #require(all.items.first)
        #expect(done["id"] is Int)
        let open = try #require(all.items.last)
        #expect(open["id"] is NSNull && open["end_fence"] is NSNull)
        #expect(open["end_time"] as? String == "2023-11-14T22:20:10.000Z")
        #expect((open["distance_m"] as? Double ?? 0) > 500)
        #expect(open["fixes"] as? Int == 4)
        // A page holds `limit` finished trips; the last one adds those under way.
        let first = try await a.http.get("/api/v1/trips?limit=1", v)
        #expect(first.items.map { $0["open"] as? Bool } == [false])
        let next = try #require(first.json["next"] as? String)
        #expect(next.contains("after="))
        let second = try await a.http.get(next, v)
        #expect(second.items.map { $0["open"] as? Bool } == [false, true])
        #expect(second.items.first?["id"] as? Int != done["id"] as? Int)
        #expect(second.json["next"] is NSNull)
        // A window that ends before the second trip leaves it out.
        let early = try await a.http.get("/api/v1/trips?to=\(t0 + 60_000)", v)
        #expect(early.items.count == 1)
        #expect(try await a.http.get("/api/v1/trips?after=12", v).status == 400)
        // A restart keeps the trip under way (from the stored device state).
        #expect(a.d.stop() == 0)
        let b = try APIDaemon(trip: "start_distance_m = 200\nstop_duration_s = 120", over: a)
        let again = try await b.http.get("/api/v1/trips?device=truck-1", v)
        #expect(again.items.map { $0["open"] as? Bool } == [false, false, true])
        #expect(again.items.last?["start_time"] as? String == open["start_time"] as? String)
    }

    @Test func fencesAreReplacedOnlyWhenValid() async throws {
        let a = try APIDaemon()
        let admin = a.auth("admin") + [("Content-Type", "application/geo+json")]
        let fences = try await a.http.get("/api/v1/fences", a.auth("viewer"))
        #expect((fences.json["features"] as? [[String: Any]])?.first?["id"] as? String == "depot")
        let invalid = try await a.http.send(
            .PUT, "/api/v1/fences", headers: admin,
            body:
                #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"x","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0]]]}},{"type":"Feature","geometry":null}]}"#
        )
        #expect(invalid.status == 422)
        #expect((invalid.json["problems"] as? [String])?.count ?? 0 >= 2)
        // The fences in use did not change.
        let still = try await a.http.get("/api/v1/fences", a.auth("viewer"))
        #expect((still.json["features"] as? [[String: Any]])?.first?["id"] as? String == "depot")
        let yard = depotFences.replacingOccurrences(of: "depot", with: "yard")
        let put = try await a.http.send(.PUT, "/api/v1/fences", headers: admin, body: yard)
        #expect(put.status == 200)
        #expect(
            try String(
                contentsOf: a.d.dir.appendingPathComponent("fences.geojson"), encoding: .utf8)
                == yard)
        // Loaded as SIGHUP would: a crossing now names the new fence.
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        #expect(exchange(client, [fixLine(1, t0, lat: 47.95, lon: 11.05)]) != nil)
        #expect(exchange(client, [fixLine(2, t0 + 10_000, lat: 48.05, lon: 11.05)]) != nil)
        let alerts = try await a.http.get("/api/v1/alerts", a.auth("viewer"))
        #expect(alerts.items.last?["fence"] as? String == "yard")
        #expect(try a.d.fleetctl("audit").contains { $0["action"] as? String == "fences.put" })
    }

    /// With `geofences.uploads` set (the installed config points it into
    /// the service's StateDirectory, since `/etc` is read-only to it), an
    /// upload is written there and the configured file is left alone; the
    /// uploaded document wins at the next start, and the log says which
    /// file was loaded instead of which.
    @Test func uploadedFencesAreKeptApartAndWinAtTheNextStart() async throws {
        let state = TestScratch.root.appendingPathComponent(
            "fleetd-uploads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let uploaded = state.appendingPathComponent("geofences.geojson").path
        let a = try APIDaemon(geofencesExtra: "uploads = \"\(uploaded)\"")
        let admin = a.auth("admin") + [("Content-Type", "application/geo+json")]
        let configured = a.d.dir.appendingPathComponent("fences.geojson")
        let before = try String(contentsOf: configured, encoding: .utf8)
        let yard = depotFences.replacingOccurrences(of: "depot", with: "yard")
        let put = try await a.http.send(.PUT, "/api/v1/fences", headers: admin, body: yard)
        #expect(put.status == 200)
        #expect(try String(contentsOfFile: uploaded, encoding: .utf8) == yard)
        #expect(try String(contentsOf: configured, encoding: .utf8) == before)
        var st = stat()
        #expect(stat(uploaded, &st) == 0 && st.st_mode & 0o777 == 0o640)
        #expect(a.d.stop() == 0)
        let b = try APIDaemon(over: a, geofencesExtra: "uploads = \"\(uploaded)\"")
        let fences = try await b.http.get("/api/v1/fences", b.auth("viewer"))
        #expect((fences.json["features"] as? [[String: Any]])?.first?["id"] as? String == "yard")
        #expect(
            b.d.log.contains(
                "loaded 1 fences from \(uploaded), uploaded through the API, instead of \(configured.path)"
            ), "\(b.d.log)")
        // Removing the upload returns to the configured file at the next start.
        #expect(b.d.stop() == 0)
        try FileManager.default.removeItem(atPath: uploaded)
        let c = try APIDaemon(over: b, geofencesExtra: "uploads = \"\(uploaded)\"")
        let back = try await c.http.get("/api/v1/fences", c.auth("viewer"))
        #expect((back.json["features"] as? [[String: Any]])?.first?["id"] as? String == "depot")
    }

    /// A document past `[geofences]`'s limits is refused as a whole, naming
    /// the limit, before any index is built or the file touched; fleetd
    /// keeps serving with the fences it had.
    @Test func fencesPastTheLimitsAreRefusedAndTheOldOnesKept() async throws {
        let a = try APIDaemon(geofencesExtra: "max_fences = 2\nmax_fence_vertices = 64")
        let admin = a.auth("admin") + [("Content-Type", "application/geo+json")]
        let file = a.d.dir.appendingPathComponent("fences.geojson")
        let before = try String(contentsOf: file, encoding: .utf8)
        // One fence of 200 vertices (a circle drawn as a polygon).
        let ring = (0...200).map { k -> String in
            let t = Double(k % 200) / 200 * 2 * Double.pi
            return "[\(11.05 + 0.01 * cos(t)),\(48.05 + 0.01 * sin(t))]"
        }.joined(separator: ",")
        let big =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"big","geometry":{"type":"Polygon","coordinates":[["#
            + ring + "]]}}]}"
        let r = try await a.http.send(.PUT, "/api/v1/fences", headers: admin, body: big)
        #expect(r.status == 422)
        let problems = (r.json["problems"] as? [String]) ?? []
        #expect(
            problems.contains {
                $0.contains("200 vertices, more than geofences.max_fence_vertices = 64")
            },
            "\(problems)")
        // Three fences: past max_fences.
        let features = try ["a", "b", "c"].map { id -> Any in
            let text = depotFences.replacingOccurrences(of: "depot", with: id)
            let doc = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            return ((doc?["features"] as? [Any]) ?? []).first ?? [:]
        }
        let many = try JSONSerialization.data(
            withJSONObject: ["type": "FeatureCollection", "features": features])
        let r2 = try await a.http.send(
            .PUT, "/api/v1/fences", headers: admin, body: String(decoding: many, as: UTF8.self))
        #expect(r2.status == 422)
        #expect(
            ((r2.json["problems"] as? [String]) ?? []).contains {
                $0.contains("3 fences, more than geofences.max_fences = 2")
            })
        // The file and the fences in use are as they were; fleetd serves on.
        #expect(try String(contentsOf: file, encoding: .utf8) == before)
        let still = try await a.http.get("/api/v1/fences", a.auth("viewer"))
        #expect((still.json["features"] as? [[String: Any]])?.first?["id"] as? String == "depot")
        #expect(try await a.http.get("/healthz").status == 200)
        // A file past the limits stops start-up (and --check-config), naming the limit.
        try big.write(to: file, atomically: true, encoding: .utf8)
        let check = try runTool(
            try Binaries.path("fleetd"), ["--config", a.d.configPath, "--check-config"])
        #expect(check.status == 2)
        #expect(check.err.contains("more than geofences.max_fence_vertices = 64"), "\(check.err)")
    }

    @Test func phonesReportThroughOsmAndInBothStyles() async throws {
        let a = try APIDaemon()
        let now = Int(Date().timeIntervalSince1970)
        let q = try await a.osmand.send(
            .POST,
            "/?id=phone-1&timestamp=\(now - 60)&lat=48.05&lon=11.05&speed=10&bearing=45&altitude=500&accuracy=8&batt=77.5&charge=true&alarm=sos"
        )
        #expect(q.status == 200)
        let form = try await a.osmand.send(
            .POST, "/", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: "id=phone-1&timestamp=\(now - 50)&lat=48.06&lon=11.05&speed=0")
        #expect(form.status == 200)
        let body = """
            {"device_id":"phone-1","location":{"timestamp":"\(RFC3339Now.format(now - 40))","coords":{"latitude":48.07,"longitude":11.05,"speed":5,"heading":-1,"accuracy":12,"altitude":510},"is_moving":true,"battery":{"level":0.5,"is_charging":false}}}
            """
        let j = try await a.osmand.send(
            .POST, "/", headers: [("Content-Type", "application/json")], body: body)
        #expect(j.status == 200)
        // Stored with their units and extras; 200 came after the commit, so they are there now.
        let p = try a.d.fleetctl("positions", ["--device", "phone-1"])
        #expect(p.count == 3)
        #expect(abs((p[0]["speed_kmh"] as? Double ?? 0) - 18.52) < 1e-9)
        #expect(p[0]["battery"] as? Double == 77.5 && p[0]["charging"] as? Bool == true)
        #expect((p[0]["attributes"] as? [String: Any])?["alarm"] as? String == "sos")
        #expect(p[0]["course"] as? Double == 45 && p[0]["accuracy_m"] as? Double == 8)
        #expect(
            p[2]["speed_kmh"] as? Double == 18 && p[2]["course"] == nil || p[2]["course"] is NSNull)
        #expect(p[2]["battery"] as? Double == 50 && p[2]["charging"] as? Bool == false)
        #expect((p[2]["attributes"] as? [String: Any])?["is_moving"] as? Bool == true)
        // Bad requests: 400 with the reason code.
        let missing = try await a.osmand.get("/?id=phone-1&lat=48")
        #expect(missing.status == 400 && missing.body.hasPrefix("missing_field"))
        let future = try await a.osmand.get(
            "/?id=phone-1&lat=48&lon=11&timestamp=\(now + 86400 * 30)")
        #expect(future.status == 400 && future.body.hasPrefix("future_time"))
        #expect(try await a.osmand.send(.DELETE, "/").status == 405)
    }

    @Test func fleetsimReplaysARouteAsAPhone() async throws {
        let a = try APIDaemon(fences: nil)
        let route = Binaries.packageRoot.appendingPathComponent(
            "Simulator/routes/t02_visnjan_car.csv"
        ).path
        let r = try runTool(
            try Binaries.path("fleetsim"),
            [
                "replay", "--proto", "osmand", "--target", "127.0.0.1:\(a.d.ports["osmand"] ?? 0)",
                "--speedup", "0", "--retime", "--device-prefix", "phone-", route,
            ], timeout: 120)
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("104 acknowledged"), "\(r.out)")
        // Every position answered 200 is stored, once, where the route says.
        let p = try a.d.fleetctl("positions", ["--device", "phone-t02_visnjan_car"])
        #expect(p.count == 104)
        #expect(p.first?["lat"] as? Double == 45.2735189 && p.first?["lon"] as? Double == 13.71421)
    }

    @Test func unknownPhonesGet404WhenTheRegistryIsClosed() async throws {
        let a = try APIDaemon(extra: "[devices]\naccept_unknown = false")
        let now = Int(Date().timeIntervalSince1970)
        let r = try await a.osmand.get("/?id=stranger&lat=48&lon=11&timestamp=\(now)")
        #expect(r.status == 404 && r.body.hasPrefix("unknown_device"))
        let j = try await a.osmand.send(
            .POST, "/", headers: [("Content-Type", "application/json")],
            body: #"{"device_id":"stranger","location":{"coords":{"latitude":48,"longitude":11}}}"#)
        #expect(j.status == 404)
    }
}

/// RFC 3339 text of Unix seconds, for test bodies.
enum RFC3339Now {
    static func format(_ s: Int) -> String {
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(s)))
    }
}
