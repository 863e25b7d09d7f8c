import FleetModel
import FleetStorage
import FleetTestSupport
import FleetTracking
import Foundation
import Testing

/// Groups of vehicles and what a scope keeps, the same on every backend:
/// a device's group set, kept and cleared by registration; users' groups
/// and drivers' vehicles stored; devices, vehicles, alerts and trips read
/// through a scope hold only its devices.
@Suite(.serialized, .offPool) struct GroupBehaviourTests {
    func audit(_ target: String) -> AuditRecord {
        AuditRecord(timeMs: 1, actor: "user:ada", action: "device.put", target: target)
    }

    @Test(arguments: BackendKind.allCases)
    func scopesKeepOnlyTheirDevices(_ kind: BackendKind) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        let admin = try db.admin()
        try admin.addDevice(DeviceRegistration(ident: "n1", group: "North"))
        try store.register(
            DeviceRegistration(ident: "s1", name: "S", group: "South", replace: true),
            audit: audit("s1"))
        // A PUT without a group keeps it; the empty group clears it.
        try store.register(
            DeviceRegistration(ident: "s1", name: "S2", replace: true), audit: audit("s1"))
        try admin.addDevice(DeviceRegistration(ident: "x", group: "North"))
        try admin.addDevice(DeviceRegistration(ident: "x", group: ""))
        var b = WriteBatch()
        for (k, id) in ["n1", "s1", "x"].enumerated() {
            b.positions.append(
                PositionRow(
                    fix: Fix(device: id, time: 1000 + Int64(k), lat: 48, lon: 11),
                    disposition: .accepted, receivedMs: 2000))
            b.alerts.append(
                Alert(type: .geofenceEnter, device: id, time: 1000, fence: "f", lat: 48, lon: 11))
            b.trips.append(
                Trip(
                    device: id, start: Waypoint(time: 0, lat: 48, lon: 11, odometerM: 0, fixNo: 1),
                    end: Waypoint(time: 900, lat: 48.1, lon: 11, odometerM: 9000, fixNo: 9),
                    startFence: nil, endFence: nil, maxSpeedKmh: 50))
        }
        try store.commit(b, committedMs: 3000)
        let r = try db.reader()
        #expect(try r.device("s1")?.group == "South" && r.device("s1")?.name == "S2")
        #expect(try r.device("x")?.group == nil && r.device("n1")?.group == "North")
        #expect(try r.deviceGroups() == ["n1": "North", "s1": "South"])
        #expect(try r.deviceGroup("n1") == "North" && r.deviceGroup("x") == nil)
        #expect(try r.deviceGroup("nobody") == nil)

        let cases: [(DeviceScope, [String])] = [
            (.all, ["n1", "s1", "x"]), (.groups(["North"]), ["n1"]),
            (.groups(["North", "South"]), ["n1", "s1"]), (.groups(["East"]), []),
            (.device("s1"), ["s1"]), (.device("nobody"), []),
        ]
        for (scope, want) in cases {
            #expect(
                try r.devices(after: "", limit: 10, scope: scope).map(\.ident) == want, "\(scope)")
            #expect(try r.vehicles(after: "", limit: 10, scope: scope).map(\.device) == want)
            var af = AlertFilter()
            af.scope = scope
            #expect(try r.alerts(afterId: 0, limit: 10, filter: af).map(\.device) == want)
            var tf = TripFilter()
            tf.scope = scope
            #expect(try r.trips(filter: tf, limit: 10).map(\.device).sorted() == want)
        }
        #expect(
            try r.vehicles(after: "", limit: 10, scope: .all).map(\.group) == [
                "North", "South", nil,
            ])
        // Paged: after an id, within the scope.
        #expect(
            try r.devices(after: "n1", limit: 10, scope: .groups(["North", "South"])).map(\.ident)
                == ["s1"])

        // Users: groups and a driver's vehicle, stored and changed.
        #expect(
            try admin.addUser(
                UserRecord(
                    name: "ann", role: .viewer, passwordHash: "h", createdMs: 1,
                    groups: ["South", "North"])))
        #expect(
            try admin.addUser(
                UserRecord(
                    name: "dan", role: .driver, passwordHash: "h", createdMs: 1, device: "n1")))
        #expect(try r.user(named: "ann")?.scope == .groups(["North", "South"]))
        #expect(try r.user(named: "dan")?.scope == .device("n1"))
        #expect(try admin.setUserGroups("ann", groups: []))
        #expect(try r.user(named: "ann")?.scope == .all)
        #expect(try admin.setUserGroups("nobody", groups: ["North"]) == false)
        // Unregistered: out of its group too.
        #expect(try admin.removeDevice("n1"))
        #expect(try r.deviceGroup("n1") == nil)
    }
}
