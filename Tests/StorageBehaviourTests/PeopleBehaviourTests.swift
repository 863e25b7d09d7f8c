import FleetModel
import FleetStorage
import FleetTestSupport
import Foundation
import Testing

/// Users and notification rules changed through the API, the same on every
/// backend: a user added, changed (its hash kept unless set), given an
/// email and removed, each change audited; rules stored, replaced, read
/// back field for field and deleted.
@Suite(.serialized, .offPool) struct PeopleBehaviourTests {
    func audit(_ action: String, _ target: String) -> AuditRecord {
        AuditRecord(timeMs: 5, actor: "user:root", action: action, target: target)
    }

    @Test(arguments: BackendKind.allCases)
    func usersAreAddedChangedAndRemoved(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        var ann = UserRecord(
            name: "ann", role: .viewer, passwordHash: "$2b$hash-1", createdMs: 1,
            groups: ["West"], email: "ann@fleet.test")
        #expect(try store.putUser(ann, setPassword: true, audit: audit("user.put", "ann")))
        let r = try db.reader()
        #expect(try r.user(named: "ann") == ann)
        ann.role = .operator
        ann.email = nil
        ann.passwordHash = "$2b$other"
        ann.createdMs = 99
        #expect(try !store.putUser(ann, setPassword: false, audit: audit("user.put", "ann")))
        let kept = try #require(try r.user(named: "ann"))
        #expect(kept.role == .operator && kept.email == nil && kept.groups == ["West"])
        #expect(kept.passwordHash == "$2b$hash-1" && kept.createdMs == 1)
        #expect(try !store.putUser(ann, setPassword: true, audit: audit("user.put", "ann")))
        #expect(try r.user(named: "ann")?.passwordHash == "$2b$other")
        // fleetctl's email, then the API's removal.
        let admin = try db.admin()
        #expect(try admin.setUserEmail("ann", email: "a2@fleet.test"))
        #expect(try !admin.setUserEmail("nobody", email: nil))
        #expect(try r.user(named: "ann")?.email == "a2@fleet.test")
        #expect(try store.removeUser("ann", audit: audit("user.remove", "ann")))
        #expect(try !store.removeUser("ann", audit: audit("user.remove", "ann")))
        #expect(try r.user(named: "ann") == nil)
        // A driver found by their key.
        let kim = UserRecord(
            name: "kim", role: .driver, passwordHash: "h", createdMs: 2, key: "00000001234567ab")
        #expect(kim.key == "00000001234567AB" && kim.problem == nil)
        #expect(try store.putUser(kim, setPassword: true, audit: audit("user.put", "kim")))
        #expect(try r.user(named: "kim") == kim)
        #expect(
            try admin.addUser(
                UserRecord(
                    name: "lee", role: .driver, passwordHash: "h", createdMs: 3,
                    key: "FFFFFFFFFFFFFFFF")))
        #expect(try r.user(named: "lee")?.key == "FFFFFFFFFFFFFFFF")
        let actions = try r.audit(afterId: 0, limit: 100).map(\.action)
        #expect(actions.filter { $0 == "user.put" }.count == 4)
        #expect(actions.contains("user.email") && actions.filter { $0 == "user.remove" }.count == 1)
    }

    @Test(arguments: BackendKind.allCases)
    func notificationRulesAreStoredReplacedAndDeleted(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        var rule = MailRule(
            name: "night", to: ["ann", "ops@fleet.test"], types: ["geofence_enter"],
            devices: ["v1"], fences: ["depot"], digestS: 600, quietHours: QuietHours("22:00-06:00"),
            timeZone: "Europe/Berlin")
        rule.groups = ["West"]
        rule.origin = .api
        rule.createdBy = "user:ann"
        #expect(try store.putMailRule(rule, audit: audit("notification.put", "night")))
        let r = try db.reader()
        #expect(try r.mailRules() == [rule])
        rule.to = ["ann"]
        rule.quietHours = nil
        #expect(try !store.putMailRule(rule, audit: audit("notification.put", "night")))
        #expect(try r.mailRules() == [rule])
        #expect(try store.deleteMailRule("night", audit: audit("notification.delete", "night")))
        #expect(try !store.deleteMailRule("night", audit: audit("notification.delete", "night")))
        #expect(try r.mailRules().isEmpty)
        #expect(
            try r.audit(afterId: 0, limit: 100).map(\.action) == [
                "notification.put", "notification.put", "notification.delete",
            ])
    }
}
