import FleetStorage
import Testing

/// When a vehicle comes due under a plan, by each measure; engine hours
/// from ignition alerts.
@Suite struct MaintenancePlanTests {
    let last = MaintenanceRecord(plan: "p", device: "t", doneMs: 0, odometerM: 1000, by: "plan")

    @Test func whicheverMeasureComesFirstMakesItDue() {
        let plan = MaintenancePlan(name: "p", everyKm: 100, everyEngineH: 10, everyDays: 30)
        let fresh = plan.status(last: last, odometerM: 51_000, engineS: 3600, nowMs: 86_400_000)
        #expect(!fresh.due)
        #expect(fresh.kmLeft == 50 && fresh.engineHLeft == 9 && fresh.daysLeft == 29)
        let km = plan.status(last: last, odometerM: 101_000, engineS: 0, nowMs: 0)
        #expect(km.dueBy == ["km"])
        let hours = plan.status(last: last, odometerM: 1000, engineS: 36_000, nowMs: 0)
        #expect(hours.dueBy == ["engine_h"])
        let days = plan.status(last: last, odometerM: 1000, engineS: nil, nowMs: 30 * 86_400_000)
        #expect(days.dueBy == ["days"])
        #expect(days.engineHSince == nil && days.engineHLeft == nil)
        // An odometer below the service's (a device replaced): nothing driven, not negative.
        #expect(plan.status(last: last, odometerM: 0, engineS: nil, nowMs: 0).kmSince == 0)
        #expect(
            MaintenancePlan(name: "q", devices: ["a"], everyDays: 1).applies(to: "b", group: nil)
                == false)
    }

    @Test func aPlanAppliesToItsVehiclesAndItsGroupsVehicles() {
        var plan = MaintenancePlan(name: "q", devices: ["a"], everyDays: 1)
        plan.groups = ["North"]
        #expect(plan.applies(to: "a", group: nil))
        #expect(plan.applies(to: "b", group: "North"))
        #expect(!plan.applies(to: "b", group: "South"))
        #expect(!plan.applies(to: "b", group: nil))
        plan.devices = []
        #expect(!plan.applies(to: "a", group: nil))
        #expect(MaintenancePlan(name: "all", everyDays: 1).applies(to: "z", group: "South"))
    }

    @Test func engineHoursAddTheIntervalsOfIgnitionOn() {
        let events: [(type: String, time: Int64)] = [
            ("ignition_on", 1000), ("ignition_off", 4000), ("ignition_on", 10_000),
            ("ignition_on", 11_000), ("ignition_off", 12_000), ("ignition_on", 20_000),
        ]
        // 3 s + 2 s + (still on) 5 s.
        #expect(EngineHours.seconds(events, fromMs: 0, nowMs: 25_000, onAtStart: false) == 10)
        // On when the count began: from its start to the first off.
        #expect(
            EngineHours.seconds(
                [("ignition_off", 5000)], fromMs: 2000, nowMs: 9000, onAtStart: true)
                == 3)
        #expect(EngineHours.seconds([], fromMs: 0, nowMs: 9000, onAtStart: false) == 0)
    }
}
