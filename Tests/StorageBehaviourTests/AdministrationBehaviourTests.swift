import FleetModel
import FleetStorage
import FleetTestSupport
import FleetTracking
import Foundation
import Testing

/// What fleetctl and the API change and read back, the same on every
/// backend: users, tokens, the device registry, commands, the audit log,
/// acknowledgements and trips.
@Suite(.serialized, .offPool) struct AdministrationBehaviourTests {
    func audit(_ action: String, _ target: String, at t: Int64 = 1000) -> AuditRecord {
        AuditRecord(timeMs: t, actor: "user:ada", action: action, target: target)
    }

    @Test(arguments: BackendKind.allCases)
    func usersAndTokensAreAddedChangedAndRemoved(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let admin = try db.admin()
        #expect(
            try admin.addUser(
                UserRecord(name: "ada", role: .admin, passwordHash: "h1", createdMs: 1)))
        #expect(
            try admin.addUser(
                UserRecord(name: "ada", role: .viewer, passwordHash: "h2", createdMs: 2)) == false)
        #expect(
            try admin.addUser(
                UserRecord(name: "bob", role: .viewer, passwordHash: "h3", createdMs: 3)))
        #expect(try admin.setPassword("ada", hash: "h4"))
        #expect(try admin.setPassword("nobody", hash: "h5") == false)
        let r = try db.reader()
        let ada = try #require(try r.user(named: "ada"))
        #expect(ada.role == .admin && ada.passwordHash == "h4" && ada.createdMs == 1)
        #expect(try r.users().map(\.name) == ["ada", "bob"])
        #expect(try admin.removeUser("bob"))
        #expect(try admin.removeUser("bob") == false)
        #expect(try r.user(named: "bob") == nil)

        #expect(
            try admin.addToken(
                TokenRecord(
                    name: "ci", role: .operator, secretHash: "s1", createdMs: 5, lastUsedMs: nil)))
        #expect(
            try admin.addToken(
                TokenRecord(
                    name: "ci", role: .viewer, secretHash: "s2", createdMs: 6, lastUsedMs: nil))
                == false)
        let t = try #require(try r.token(secretHash: "s1"))
        #expect(t.name == "ci" && t.role == .operator && t.lastUsedMs == nil)
        try db.store().tokensUsed(["ci": 9000])
        #expect(try r.token(secretHash: "s1")?.lastUsedMs == 9000)
        #expect(try r.tokens().map(\.name) == ["ci"])
        #expect(try admin.revokeToken("ci"))
        #expect(try admin.revokeToken("ci") == false)
        #expect(try r.token(secretHash: "s1") == nil)
    }

    @Test(arguments: BackendKind.allCases)
    func theRegistryKeepsDevicesAndTheirNames(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        try store.register(
            DeviceRegistration(ident: "356307042441013", name: "Van 1", plate: "M-AB 12"),
            audit: audit("device.register", "356307042441013"))
        try db.admin().addDevice("truck-2", name: nil, plate: nil, vin: "WVWZZZ")
        // Heard from but never registered.
        var b = WriteBatch()
        b.positions = [
            PositionRow(
                fix: Fix(device: "stranger", time: 1000, lat: 1, lon: 2), disposition: .accepted,
                receivedMs: 1001)
        ]
        try store.commit(b, committedMs: 1002)
        let r = try db.reader()
        #expect(try r.registeredDevices() == ["356307042441013", "truck-2"])
        #expect(try r.deviceIdents() == ["356307042441013", "truck-2", "stranger"])
        let van = try #require(try r.device("356307042441013"))
        #expect(van.name == "Van 1" && van.plate == "M-AB 12" && van.registered)
        #expect(try r.device("truck-2")?.vin == "WVWZZZ")
        let stranger = try #require(try r.device("stranger"))
        #expect(!stranger.registered && stranger.positions == 1 && stranger.lastFix == 1000)
        #expect(try r.deviceNames()["356307042441013"] == "Van 1")
        // Paged by ident.
        #expect(try r.devices(after: "", limit: 2).map(\.ident) == ["356307042441013", "stranger"])
        #expect(try r.devices(after: "stranger", limit: 2).map(\.ident) == ["truck-2"])
        // Updating keeps what is not given.
        try db.admin().addDevice("356307042441013", name: nil, plate: "M-CD 34", vin: nil)
        let updated = try #require(try r.device("356307042441013"))
        #expect(updated.name == "Van 1" && updated.plate == "M-CD 34")
        #expect(try store.unregister("truck-2", audit: audit("device.unregister", "truck-2")))
        #expect(
            try store.unregister("truck-2", audit: audit("device.unregister", "truck-2")) == false)
        #expect(try db.admin().removeDevice("356307042441013"))
        #expect(try r.registeredDevices().isEmpty)
        // The audit log holds every change in order, by whom it was made.
        let log = try r.audit(afterId: 0, limit: 100)
        #expect(
            log.map(\.action) == [
                "device.register", "device.add", "device.add", "device.unregister", "device.remove",
            ])
        #expect(log.map(\.target)[3...] == ["truck-2", "356307042441013"])
        #expect(log[0].actor == "user:ada" && log[1].actor == AuditRecord.localActor)
        #expect(zip(log, log.dropFirst()).allSatisfy { $0.id < $1.id })
    }

    @Test(arguments: BackendKind.allCases)
    func commandsGoFromQueuedToAnsweredOrExpired(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        try store.register(
            DeviceRegistration(ident: "gt06-1"), audit: audit("device.register", "gt06-1"))
        let unknown = CommandRecord(
            device: "nobody", text: "STATUS#", actor: "user:ada", queuedMs: 1000, expiresMs: 5000)
        #expect(try store.queueCommand(unknown, audit: audit("command.queue", "nobody")) == nil)
        let first = try #require(
            try store.queueCommand(
                CommandRecord(
                    device: "gt06-1", text: "STATUS#", actor: "user:ada", queuedMs: 1000,
                    expiresMs: 5000), audit: audit("command.queue", "gt06-1")))
        let second = try #require(
            try db.admin().queueCommand(
                CommandRecord(
                    device: "gt06-1", text: "RELAY,1#", actor: "fleetctl:root", queuedMs: 2000,
                    expiresMs: 3000)))
        #expect(first.id > 0 && second.id > first.id && first.status == .queued)
        _ = try store.updateCommand(id: first.id, to: .sent, atMs: 2500, response: nil)
        _ = try store.updateCommand(id: first.id, to: .answered, atMs: 2600, response: "OK")
        let expired = try store.expireCommands(nowMs: 4000)
        #expect(expired.map(\.id) == [second.id])
        let r = try db.reader()
        let all = try r.commands(device: "gt06-1", statuses: [], limit: 10)
        let answered = try #require(all.first { $0.id == first.id })
        #expect(
            answered.status == .answered && answered.sentMs == 2500 && answered.answeredMs == 2600
                && answered.response == "OK")
        #expect(all.first { $0.id == second.id }?.status == .expired)
        #expect(try r.commands(device: nil, statuses: [.queued], limit: 10).isEmpty)
    }

    @Test(arguments: BackendKind.allCases)
    func anAlertIsAcknowledgedOnce(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        var b = WriteBatch()
        b.alerts = [
            Alert(type: .overspeedStart, device: "d", time: 1000, fence: nil, lat: 1, lon: 2)
        ]
        let id = try #require(try store.commit(b, committedMs: 1001).first?.id)
        let acked = try #require(
            try store.acknowledge(
                alert: id, by: "user:ada", atMs: 5000, audit: audit("alert.ack", "\(id)")))
        #expect(acked.ackedBy == "user:ada" && acked.ackedMs == 5000)
        // A second acknowledgement changes nothing.
        let again = try #require(
            try store.acknowledge(
                alert: id, by: "user:bob", atMs: 6000, audit: audit("alert.ack", "\(id)")))
        #expect(again.ackedBy == "user:ada" && again.ackedMs == 5000)
        #expect(
            try store.acknowledge(
                alert: id + 1, by: "user:ada", atMs: 1, audit: audit("alert.ack", "x")) == nil)
        #expect(try db.reader().alert(id: id)?.ackedBy == "user:ada")
    }

    @Test(arguments: BackendKind.allCases)
    func tripsAreStoredWithTheirFencesAndDriverAndPagedByStart(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        var b = WriteBatch()
        for k in 0..<3 {
            let t0 = Int64(k) * 3_600_000
            var trip = Trip(
                device: k == 1 ? "b" : "a",
                start: Waypoint(time: t0, lat: 48, lon: 11, odometerM: 1000, fixNo: 1),
                end: Waypoint(
                    time: t0 + 600_000, lat: 48.1, lon: 11.1, odometerM: 13_500, fixNo: 60),
                startFence: "Depot", endFence: k == 0 ? "Customer A, Yard" : nil, maxSpeedKmh: 88)
            trip.startFenceId = "depot"
            trip.driver = k == 2 ? "00000A1B2C3D" : nil
            b.trips.append(trip)
        }
        try store.commit(b, committedMs: 1)
        let r = try db.reader()
        let a = try r.trips(filter: TripFilter(device: "a"), limit: 10)
        #expect(a.map(\.startTime) == [0, 7_200_000] || a.map(\.startTime) == [7_200_000, 0])
        let first = try #require(a.first { $0.startTime == 0 })
        #expect(first.distanceM == 12_500 && first.fixes == 60 && first.maxSpeedKmh == 88)
        #expect(first.startFence == "Depot" && first.endFence == "Customer A, Yard")
        #expect(first.startFenceId == "depot" && first.endFenceId == nil && !first.open)
        #expect(a.first { $0.startTime == 7_200_000 }?.driver == "00000A1B2C3D")
        let all = try r.trips(filter: TripFilter(), limit: 10)
        #expect(all.count == 3)
        let late = try r.trips(filter: TripFilter(fromMs: 3_600_000), limit: 10)
        #expect(Set(late.map(\.startTime)) == [3_600_000, 7_200_000])
    }

    /// Shared links: added for a known device only, listed newest first,
    /// found by their token's hash, revoked once (audited each time).
    @Test(arguments: BackendKind.allCases)
    func sharedLinksAreAddedListedFoundAndRevoked(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        try db.admin().addDevice("van-1", name: "Van 1", plate: nil, vin: nil)
        func link(_ hash: String, _ t: Int64) -> ShareRecord {
            ShareRecord(
                device: "van-1", tokenHash: hash, createdMs: t, expiresMs: t + 3_600_000,
                createdBy: "user:ops")
        }
        let first = try #require(
            try store.addShare(link("aa", 1000), audit: audit("share.create", "van-1")))
        let second = try #require(
            try store.addShare(link("bb", 2000), audit: audit("share.create", "van-1")))
        #expect(first.id > 0 && second.id > first.id && second.revokedMs == nil)
        #expect(
            try store.addShare(
                ShareRecord(
                    device: "nobody", tokenHash: "cc", createdMs: 1, expiresMs: 2, createdBy: "x"),
                audit: audit("share.create", "nobody")) == nil)
        let r = try db.reader()
        #expect(try r.shares(device: "van-1").map(\.id) == [second.id, first.id])
        #expect(try r.share(tokenHash: "aa") == first)
        #expect(try r.share(tokenHash: "zz") == nil)
        #expect(
            try store.revokeShare(
                device: "van-1", id: first.id, atMs: 5000, audit: audit("share.revoke", "van-1")))
        #expect(try r.share(tokenHash: "aa")?.revokedMs == 5000)
        #expect(try r.share(tokenHash: "aa")?.isActive(atMs: 3000) == false)
        #expect(try r.share(tokenHash: "bb")?.isActive(atMs: 3000) == true)
        #expect(try r.share(tokenHash: "bb")?.isActive(atMs: 2000 + 3_600_000) == false)
        // Revoking again keeps the first time; another device's link is not found.
        #expect(
            try store.revokeShare(
                device: "van-1", id: first.id, atMs: 9000, audit: audit("share.revoke", "van-1")))
        #expect(try r.share(tokenHash: "aa")?.revokedMs == 5000)
        #expect(
            try store.revokeShare(
                device: "other", id: second.id, atMs: 9000, audit: audit("share.revoke", "other"))
                == false)
        let log = try r.audit(afterId: 0, limit: 100).map(\.action)
        #expect(log.filter { $0 == "share.create" }.count == 2)
        #expect(log.filter { $0 == "share.revoke" }.count == 2)
    }
}
