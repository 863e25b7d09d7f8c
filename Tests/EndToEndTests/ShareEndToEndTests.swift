import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// Links that share a vehicle, against a live fleetd: made by an operator
/// only, for a known device only, within `http.share_max_s`; the page and
/// its track work without a login and show that vehicle's positions since
/// the link was made and nothing before; a revoked, unknown or malformed
/// link is the same 404; each change audited; the token never stored nor
/// logged.
@Suite(.offPool) struct ShareEndToEndTests {
    @Test func anOperatorSharesAVehicleAndRevokesTheLink() async throws {
        let a = try APIEndToEndTests.APIDaemon(httpExtra: "share_max_s = 7200")
        let client = try UDPClient(host: "127.0.0.1", port: a.d.port)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // Before the link: never shown by it.
        #expect(
            exchange(client, [fixLine(1, now - 60_000, lat: 47.9, lon: 11.5, device: "van-3")])
                != nil)
        let op = a.auth("operator") + [("Content-Type", "application/json")]
        let viewer = a.auth("viewer") + [("Content-Type", "application/json")]

        let refused = try await a.http.send(
            .POST, "/api/v1/devices/van-3/shares", headers: viewer, body: "{}")
        #expect(refused.status == 403)
        let unknown = try await a.http.send(
            .POST, "/api/v1/devices/nobody/shares", headers: op, body: "{}")
        #expect(unknown.status == 404)
        for body in [#"{"expires_in_s":10}"#, #"{"expires_in_s":7201}"#, #"{"x":1}"#, "[]"] {
            let bad = try await a.http.send(
                .POST, "/api/v1/devices/van-3/shares", headers: op, body: body)
            #expect(bad.status == 422, "\(body): \(bad.status) \(bad.body)")
        }
        let made = try await a.http.send(
            .POST, "/api/v1/devices/van-3/shares", headers: op, body: #"{"expires_in_s":3600}"#)
        #expect(made.status == 201, "\(made.body)")
        let token = try #require(made.json["token"] as? String)
        #expect(token.hasPrefix("flsh_") && token.count == 48)
        #expect(made.json["url"] as? String == "/share/" + token)
        #expect((made.json["created_by"] as? String)?.hasPrefix("token:operator") == true)
        let shareId = try #require(made.json["id"] as? Int)

        // The page and its track, without a login.
        let page = try await a.http.get("/share/" + token)
        #expect(page.status == 200 && page.body.contains("/share/files/share.js"))
        #expect(
            page.headers.first(name: "content-security-policy")?.contains("default-src 'self'")
                == true)
        #expect(try await a.http.get("/share/files/share.js").status == 200)
        let empty = try await a.http.get("/share/\(token)/track")
        #expect(empty.status == 200, "\(empty.body)")
        #expect((empty.json["positions"] as? [Any])?.isEmpty == true, "\(empty.body)")
        #expect(empty.json["device"] as? String == "van-3")

        // After it: shown, oldest first; another vehicle never.
        let t1 = Int64(Date().timeIntervalSince1970 * 1000) + 1000
        #expect(exchange(client, [fixLine(2, t1, lat: 47.91, lon: 11.5, device: "van-3")]) != nil)
        #expect(
            exchange(client, [fixLine(3, t1 + 1000, lat: 47.92, lon: 11.5, device: "van-3")]) != nil
        )
        #expect(exchange(client, [fixLine(4, t1, lat: 40, lon: 10, device: "truck-9")]) != nil)
        let track = try await a.http.get("/share/\(token)/track")
        let positions = track.json["positions"] as? [[String: Any]] ?? []
        #expect(positions.map { $0["lat"] as? Double } == [47.91, 47.92], "\(track.body)")
        let first = positions.first?["time"] as? String ?? ""
        let later = try await a.http.get("/share/\(token)/track?after=\(first)")
        #expect((later.json["positions"] as? [[String: Any]])?.count == 1)

        // Listed for operators, without the token or its hash.
        let list = try await a.http.get("/api/v1/devices/van-3/shares", a.auth("operator"))
        #expect(list.status == 200 && list.items.count == 1)
        #expect(!list.body.contains(token) && list.json.description.contains("hash") == false)
        #expect(
            try await a.http.get("/api/v1/devices/van-3/shares", a.auth("viewer")).status == 403)

        // Unknown and malformed links: the same 404.
        let forged = "flsh_" + String(repeating: "A", count: 43)
        let unknownLink = try await a.http.get("/share/\(forged)/track")
        let malformed = try await a.http.get("/share/not-a-token/track")
        #expect(unknownLink.status == 404 && malformed.status == 404)
        #expect(unknownLink.body == malformed.body)
        #expect(try await a.http.get("/share/not-a-token").status == 404)

        // Revoked by its token: the link stops at once; again by its id: no change.
        let revoked = try await a.http.send(
            .DELETE, "/api/v1/devices/van-3/shares/\(token)", headers: a.auth("operator"))
        #expect(revoked.status == 200 && revoked.json["revoked"] is String, "\(revoked.body)")
        let gone = try await a.http.get("/share/\(token)/track")
        #expect(gone.status == 404 && gone.body == unknownLink.body)
        let again = try await a.http.send(
            .DELETE, "/api/v1/devices/van-3/shares/\(shareId)", headers: a.auth("operator"))
        #expect(
            again.status == 200
                && again.json["revoked"] as? String == revoked.json["revoked"] as? String)
        let none = try await a.http.send(
            .DELETE, "/api/v1/devices/van-3/shares/99999", headers: a.auth("operator"))
        #expect(none.status == 404)

        let audit = try a.d.fleetctl("audit").compactMap { $0["action"] as? String }
        #expect(audit.filter { $0 == "share.create" }.count == 1)
        #expect(audit.filter { $0 == "share.revoke" }.count == 2)
        #expect(!a.d.log.contains(token))
        let db = try Data(contentsOf: URL(fileURLWithPath: a.d.database))
        #expect(db.range(of: Data(token.utf8)) == nil)
        #expect(a.d.stop() == 0)
    }
}
