import FleetModel
import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import NIOHTTP1
import Testing

/// Users and notification rules managed through the API, against a live
/// fleetd and a real mail server: an admin adds a user limited to a group
/// with an email; the user makes a rule addressed to themselves and is
/// mailed only about their group's vehicles; nobody else's rules are seen,
/// nobody else can be addressed; an admin's rule to an address gets every
/// vehicle; a driver has no rules; an admin cannot lock themselves out.
@Suite(.serialized, .offPool) struct PeopleEndToEndTests {
    static let json = [("Content-Type", "application/json")]

    func login(_ a: APIEndToEndTests.APIDaemon, _ user: String, _ password: String) async throws
        -> [(String, String)]
    {
        let ok = try await a.http.send(
            .POST, "/api/v1/session", headers: Self.json,
            body: #"{"user":"\#(user)","password":"\#(password)"}"#)
        guard ok.status == 200 else { throw E2EError("login \(user): \(ok.status) \(ok.body)") }
        let set = ok.headers.first(name: "Set-Cookie") ?? ""
        return [("Cookie", String(set.prefix { $0 != ";" }))] + Self.json
    }

    @Test func usersAndTheirOwnRulesThroughTheAPIMailOnlyWhatTheySee() async throws {
        guard let server = try MailServer.started() else { return }
        defer { server.stop() }
        let a = try APIEndToEndTests.APIDaemon(
            extra: server.config(), httpExtra: "mail_rules_per_user = 2\nmail_rules_max = 4")
        let admin = a.auth("admin") + Self.json
        var step = 0
        try WebhookEndToEndTests.cross(a.d.port, 6, step: &step)  // truck-0, -1, -2 known
        // West by fleetctl beside the daemon (only the store knows it: the
        // mail planner reads it), East through the API.
        let west = try runTool(
            try Binaries.path("fleetctl"),
            ["devices", "group", "West", "truck-0"] + a.d.databaseArgs)
        #expect(west.status == 0, "\(west.err)")
        let east = try await a.http.send(
            .PUT, "/api/v1/devices/truck-1", headers: admin, body: #"{"group":"East"}"#)
        #expect(east.status == 200, "\(east.body)")

        // Users through the API.
        let westie = try await a.http.send(
            .PUT, "/api/v1/users/westie", headers: admin,
            body:
                #"{"role":"viewer","password":"password-westie","groups":["West"],"email":"old@fleet.test"}"#
        )
        #expect(westie.status == 201, "\(westie.body)")
        #expect(westie.json["groups"] as? [String] == ["West"])
        #expect(!westie.body.contains("$2"), "a hash was returned: \(westie.body)")
        let moved = try await a.http.send(
            .PUT, "/api/v1/users/westie", headers: admin, body: #"{"email":"westie@fleet.test"}"#)
        #expect(moved.status == 200 && moved.json["email"] as? String == "westie@fleet.test")
        #expect(moved.json["role"] as? String == "viewer", "a field left out was changed")
        let bad = try await a.http.send(
            .PUT, "/api/v1/users/newbie", headers: admin,
            body: #"{"role":"boss","email":"not an address","colour":1}"#)
        #expect(bad.status == 422, "\(bad.body)")
        for word in ["role", "colour", "password"] {
            #expect(bad.body.contains(word), "\(word) not named: \(bad.body)")
        }
        let short = try await a.http.send(
            .PUT, "/api/v1/users/newbie", headers: admin, body: #"{"role":"viewer","password":"x"}"#
        )
        #expect(short.status == 422 && short.body.contains("8 characters"), "\(short.body)")
        let driver = try await a.http.send(
            .PUT, "/api/v1/users/drv", headers: admin,
            body: #"{"role":"driver","device":"truck-2","password":"password-drv"}"#)
        #expect(driver.status == 201, "\(driver.body)")
        let ghostVan = try await a.http.send(
            .PUT, "/api/v1/users/drv2", headers: admin,
            body: #"{"role":"driver","device":"no-such-van","password":"password-drv"}"#)
        #expect(ghostVan.status == 422 && ghostVan.body.contains("no device"), "\(ghostVan.body)")
        let list = try await a.http.get("/api/v1/users", admin)
        #expect(
            Set(list.items.compactMap { $0["name"] as? String })
                == ["admin", "operator", "viewer", "westie", "drv"], "\(list.body)")
        #expect(try await a.http.get("/api/v1/users", a.auth("operator")).status == 403)
        // An admin cannot lock themselves out.
        let me = try await login(a, "admin", "password-admin")
        #expect(try await a.http.send(.DELETE, "/api/v1/users/admin", headers: me).status == 409)
        let demote = try await a.http.send(
            .PUT, "/api/v1/users/admin", headers: me, body: #"{"role":"viewer"}"#)
        #expect(demote.status == 409, "\(demote.body)")

        // Rules: the user's own, addressed by their email (stored as their name).
        let w = try await login(a, "westie", "password-westie")
        let mine = try await a.http.send(
            .PUT, "/api/v1/notifications/mine", headers: w,
            body: #"{"to":["westie@fleet.test"],"types":["geofence_enter","geofence_exit"]}"#)
        #expect(mine.status == 201, "\(mine.body)")
        #expect(mine.json["to"] as? [String] == ["westie"], "\(mine.body)")
        #expect(mine.json["created_by"] as? String == "user:westie")
        let spy = try await a.http.send(
            .PUT, "/api/v1/notifications/spy", headers: w,
            body: #"{"to":["westie","someone@else.test"]}"#)
        #expect(spy.status == 422 && spy.body.contains("someone@else.test"), "\(spy.body)")
        // The admin's rules: to an address (every vehicle), to a user who does not exist.
        let ops = try await a.http.send(
            .PUT, "/api/v1/notifications/ops", headers: admin,
            body: #"{"to":["ops@fleet.test"],"types":["geofence_enter"],"bogus":true}"#)
        #expect(ops.status == 422 && ops.body.contains("bogus"), "\(ops.body)")
        let ops2 = try await a.http.send(
            .PUT, "/api/v1/notifications/ops", headers: admin,
            body: #"{"to":["ops@fleet.test"],"types":["geofence_enter"]}"#)
        #expect(ops2.status == 201, "\(ops2.body)")
        let ghost = try await a.http.send(
            .PUT, "/api/v1/notifications/g", headers: admin, body: #"{"to":["ghost"]}"#)
        #expect(ghost.status == 422 && ghost.body.contains("no user ghost"), "\(ghost.body)")
        let toDriver = try await a.http.send(
            .PUT, "/api/v1/notifications/g", headers: admin, body: #"{"to":["drv"]}"#)
        #expect(toDriver.status == 422, "\(toDriver.body)")
        // Each sees what they manage; another's rule is not there for them.
        let theirs = try await a.http.get("/api/v1/notifications", w)
        #expect(theirs.items.compactMap { $0["name"] as? String } == ["mine"], "\(theirs.body)")
        #expect(try await a.http.get("/api/v1/notifications/ops", w).status == 404)
        #expect(
            try await a.http.send(.DELETE, "/api/v1/notifications/ops", headers: w).status == 404)
        let taken = try await a.http.send(
            .PUT, "/api/v1/notifications/ops", headers: w, body: #"{"to":["westie"]}"#)
        #expect(taken.status == 409, "\(taken.body)")
        let all = try await a.http.get("/api/v1/notifications", admin)
        #expect(Set(all.items.compactMap { $0["name"] as? String }) == ["mine", "ops"])
        let d = try await login(a, "drv", "password-drv")
        #expect(try await a.http.get("/api/v1/notifications", d).status == 403)
        // A change through the API counts from the user's next request.
        #expect(try await a.http.get("/api/v1/session", d).status == 200)
        let toViewer = try await a.http.send(
            .PUT, "/api/v1/users/drv", headers: admin,
            body: #"{"role":"viewer","device":null}"#)
        #expect(toViewer.status == 200, "\(toViewer.body)")
        #expect(try await a.http.get("/api/v1/session", d).status == 401)
        // The limits: two rules a user, four in all.
        let second = try await a.http.send(
            .PUT, "/api/v1/notifications/mine2", headers: w, body: #"{"to":["westie"]}"#)
        #expect(second.status == 201, "\(second.body)")
        let third = try await a.http.send(
            .PUT, "/api/v1/notifications/mine3", headers: w, body: #"{"to":["westie"]}"#)
        #expect(
            third.status == 409 && third.body.contains("http.mail_rules_per_user"), "\(third.body)")
        let replaced = try await a.http.send(
            .PUT, "/api/v1/notifications/mine2", headers: w,
            body: #"{"to":["westie"],"digest_s":60}"#)
        #expect(replaced.status == 200, "a rule replaced is not a new one: \(replaced.body)")
        for (k, want) in [(1, 201), (2, 409)] {
            let r = try await a.http.send(
                .PUT, "/api/v1/notifications/admin\(k)", headers: admin, body: #"{"to":["x@y.z"]}"#)
            #expect(r.status == want, "admin\(k): \(r.body)")
        }
        #expect(
            try await a.http.send(.DELETE, "/api/v1/notifications/mine2", headers: w).status == 200)
        #expect(
            try await a.http.send(.DELETE, "/api/v1/notifications/admin1", headers: admin).status
                == 200)

        // Alerts after the rules: westie is mailed about truck-0 only, ops about all three.
        try WebhookEndToEndTests.cross(a.d.port, 12, step: &step)
        func deviceOf() throws -> [Int: String] {
            var out: [Int: String] = [:]
            for row in try a.d.fleetctl("alerts") {
                if let id = row["id"] as? Int { out[id] = row["device"] as? String }
            }
            return out
        }
        func mailed(_ to: String) throws -> Set<String> {
            let devices = try deviceOf()
            return Set(
                server.received().filter { $0.rcptTos == [to] }.flatMap(\.alertIds)
                    .compactMap { devices[$0] })
        }
        let arrived = try WebhookEndToEndTests.wait(30) {
            try mailed("ops@fleet.test") == ["truck-0", "truck-1", "truck-2"]
                && !mailed("westie@fleet.test").isEmpty
        }
        let (toOps, toWestie) = (try mailed("ops@fleet.test"), try mailed("westie@fleet.test"))
        #expect(arrived, "ops: \(toOps); westie: \(toWestie)")
        try await Task.sleep(for: .seconds(1.5))  // anything else the planner had would be out now
        #expect(try mailed("westie@fleet.test") == ["truck-0"])
        #expect(!server.received().contains { $0.rcptTos.contains("old@fleet.test") })

        // fleetctl shows the rules; deleting one is audited.
        let rules = try runTool(
            try Binaries.path("fleetctl"), ["notifications", "--rules", "--db", a.d.database])
        #expect(rules.status == 0 && rules.out.contains("user:westie"), "\(rules.out)\(rules.err)")
        #expect(
            try await a.http.send(.DELETE, "/api/v1/notifications/mine", headers: w).status == 200)
        let audit = try a.d.fleetctl("audit")
        for action in ["user.put", "notification.put", "notification.delete"] {
            #expect(audit.contains { $0["action"] as? String == action }, "no \(action)")
        }
        #expect(a.d.stop() == 0)

        // Without [smtp] no rule can be made.
        let plain = try APIEndToEndTests.APIDaemon()
        let none = try await plain.http.send(
            .PUT, "/api/v1/notifications/x", headers: plain.auth("admin") + Self.json,
            body: #"{"to":["a@b.c"]}"#)
        #expect(none.status == 409 && none.body.contains("[smtp]"), "\(none.body)")
        #expect(plain.d.stop() == 0)
    }

    /// A driver found by their iButton key: they see the vehicle that read
    /// it last, none before any did and none once it is taken out.
    @Test func aDriverFoundByTheirKeySeesTheVehicleThatReadIt() async throws {
        let d = try DaemonProcess(
            fences: nil, http: "127.0.0.1:0", listenExtra: "teltonika_tcp = \"127.0.0.1:0\"")
        let http = HTTPTestClient(port: d.ports["http"] ?? 0)
        let ctl = try Binaries.path("fleetctl")
        let bad = try runTool(
            ctl,
            ["users", "add", "kim", "--role", "driver", "--key", "12345", "--password-stdin"]
                + d.databaseArgs, stdin: "password-kim\n")
        #expect(bad.status != 0 && bad.err.contains("16 hexadecimal digits"), "\(bad.err)")
        let add = try runTool(
            ctl,
            [
                "users", "add", "kim", "--role", "driver", "--key", "00000001234567ab",
                "--password-stdin",
            ] + d.databaseArgs, stdin: "password-kim\n")
        #expect(add.status == 0, "\(add.err)")
        let me = try await {
            let ok = try await http.send(
                .POST, "/api/v1/session", headers: Self.json,
                body: #"{"user":"kim","password":"password-kim"}"#)
            let set = ok.headers.first(name: "Set-Cookie") ?? ""
            return [("Cookie", String(set.prefix { $0 != ";" }))]
        }()
        func sees() async throws -> [String] {
            try await http.get("/api/v1/devices", me).items.compactMap { $0["device"] as? String }
        }
        let t0 = (WallClock.system.nowMs() - 600_000) / 1000 * 1000
        var sent = 0
        func send(_ imei: String, key: UInt64?) throws {
            let c = try TCPTestClient(port: try #require(d.ports["teltonika_tcp"]))
            c.send(TeltonikaEncoder.handshake(imei: imei))
            #expect(c.receive(1).bytes == [1])
            var r = TeltonikaEncoder.Record(time: t0 + Int64(sent) * 10_000, lat: 48.05, lon: 11.05)
            r.sats = 9
            if let key { r.io = [(78, 8, key)] }
            sent += 1
            c.send(TeltonikaEncoder.tcp(codec: 0x8E, records: [r]))
            #expect(c.receive(4).bytes == [0, 0, 0, 1])
        }
        try send("352093081452301", key: nil)
        #expect(try await sees().isEmpty, "no vehicle has read the key yet")
        try send("352093081452301", key: 0x0000_0001_2345_67AB)
        #expect(try await sees() == ["352093081452301"])
        let session = try await http.get("/api/v1/session", me)
        #expect(session.json["device"] as? String == "352093081452301", "\(session.body)")
        // Another vehicle reads it: the driver moved.
        try send("352093081452302", key: 0x0000_0001_2345_67AB)
        #expect(try await sees() == ["352093081452302"])
        #expect(try await http.get("/api/v1/devices/352093081452301", me).status == 404)
        // Taken out: none.
        try send("352093081452302", key: 0)
        #expect(try await sees().isEmpty)
        let list = try runTool(ctl, ["users", "list"] + d.databaseArgs)
        #expect(list.out.contains("the vehicle of key 00000001234567AB"), "\(list.out)")
        #expect(d.stop() == 0)
    }
}
