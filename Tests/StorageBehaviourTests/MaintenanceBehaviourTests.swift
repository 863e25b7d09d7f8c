import FleetStorage
import FleetTestSupport
import Foundation
import Testing

/// Maintenance records, the same on every backend: the daemon's start
/// records and fleetctl's services, newest first, each plan's latest.
@Suite(.serialized, .offPool) struct MaintenanceBehaviourTests {
    @Test(arguments: BackendKind.allCases) func recordsAndTheLatestOfEachPlan(_ kind: BackendKind)
        async throws
    {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        try w.addMaintenance(
            [
                MaintenanceRecord(
                    plan: "oil", device: "t1", doneMs: 1000, odometerM: 10, by: "plan"),
                MaintenanceRecord(
                    plan: "tyres", device: "t1", doneMs: 1000, odometerM: 10, by: "plan"),
                MaintenanceRecord(
                    plan: "oil", device: "t2", doneMs: 1000, odometerM: 0, by: "plan"),
            ], audit: nil)
        try w.addMaintenance(
            [
                MaintenanceRecord(
                    plan: "oil", device: "t1", doneMs: 5000, odometerM: 15_000.5, by: "user:ann",
                    note: "5W-30")
            ],
            audit: AuditRecord(
                timeMs: 5000, actor: "user:ann", action: "maintenance.done", target: "t1",
                detail: "oil"))
        try db.admin().addMaintenance(
            MaintenanceRecord(
                plan: "tyres", device: "t2", doneMs: 3000, odometerM: 7, by: "local:x"),
            audit: AuditRecord(
                timeMs: 3000, actor: "local:x", action: "maintenance.done", target: "t2",
                detail: "tyres"))
        let r = try db.reader()
        let t1 = try r.maintenance(device: "t1", latestOnly: false)
        #expect(t1.map(\.doneMs) == [5000, 1000, 1000])
        #expect(t1.first?.note == "5W-30" && t1.first?.odometerM == 15_000.5)
        let latest = try r.maintenance(device: nil, latestOnly: true)
        #expect(
            Set(latest.map { "\($0.device)/\($0.plan)@\($0.doneMs)" })
                == ["t1/oil@5000", "t1/tyres@1000", "t2/oil@1000", "t2/tyres@3000"])
        #expect(
            try r.audit(afterId: 0, limit: 10).filter { $0.action == "maintenance.done" }.count == 2
        )
        // A service a person recorded counts over a later plan start.
        try w.addMaintenance(
            [MaintenanceRecord(plan: "oil", device: "t3", doneMs: 9000, odometerM: 0, by: "plan")],
            audit: nil)
        try db.admin().addMaintenance(
            MaintenanceRecord(plan: "oil", device: "t3", doneMs: 2000, odometerM: 0, by: "local:x"),
            audit: AuditRecord(
                timeMs: 9500, actor: "local:x", action: "maintenance.done", target: "t3",
                detail: "oil"))
        #expect(try r.maintenance(device: "t3", latestOnly: true).map(\.by) == ["local:x"])
        #expect(
            try r.maintenance(device: "t3", latestOnly: false).map(\.by) == ["plan", "local:x"])
    }
}
