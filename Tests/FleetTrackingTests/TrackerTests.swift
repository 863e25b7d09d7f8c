import FleetGeo
import FleetModel
import Testing

@testable import FleetTracking

/// Two boxes: A = lon 0…1, lat 0…1; B = lon 0.5…2, lat 0…1 (overlapping A).
let twoBoxes = FenceIndex(fences: [
    Fence(id: "A", name: "A", shape: .polygons([box(0, 0, 1, 1)])),
    Fence(id: "B", name: "B", shape: .polygons([box(0.5, 0, 2, 1)])),
])

func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Polygon {
    Polygon(
        shell: Ring(
            [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)].map {
                Coordinate(lat: $0.1, lon: $0.0)
            }),
        holes: [])
}

func fix(_ t: Int64, _ lon: Double, _ lat: Double = 0.5, valid: Bool = true) -> Fix {
    Fix(device: "d", time: t * 1000, lat: lat, lon: lon, valid: valid)
}

@Suite struct TrackerTests {
    /// Runs fixes through a tracker; returns "type fence @t" strings.
    func run(_ fixes: [Fix], state: DeviceState? = nil) -> (
        [String], DeviceState?, [FixDisposition]
    ) {
        // Exits at the first fix beyond the margin: these tests are about the basic semantics.
        // Boxes a degree wide crossed in seconds: the jump filter is off.
        var tracker = Tracker(
            fences: twoBoxes, settings: TrackerSettings(exitConfirmFixes: 1, jumpSpeedKmh: 0))
        var st = state
        var alerts: [String] = []
        var dispositions: [FixDisposition] = []
        for f in fixes {
            let o = tracker.process(f, state: st)
            st = o.state
            dispositions.append(o.disposition)
            alerts += o.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }.map
            { "\($0.type.rawValue) \($0.fence ?? "-") @\($0.time / 1000)" }
        }
        return (alerts, st, dispositions)
    }

    @Test func entersAndExitsEachFence() {
        // Each dated where the way between two fixes crossed the boundary
        // (whole seconds shown): A at 1.83 s, B at 2.6 s, out of A at 3.62 s.
        let (alerts, state, _) = run([fix(1, -1), fix(2, 0.2), fix(3, 0.7), fix(4, 1.5), fix(5, 3)])
        #expect(
            alerts == [
                "geofence_enter A @1", "geofence_enter B @2", "geofence_exit A @3",
                "geofence_exit B @4",
            ])
        #expect(state?.fences == [])
    }

    /// Alerts and trips both name a fence by id and by name.
    @Test func alertsAndTripsCarryFenceIdsAndNames() {
        let fences = FenceIndex(fences: [
            Fence(id: "dep-1", name: "North depot", shape: .polygons([box(0, 0, 1, 1)])),
            Fence(id: "yard", name: "Yard", shape: .polygons([box(0.5, 0, 2, 1)])),
        ])
        var settings = TrackerSettings(exitConfirmFixes: 1, jumpSpeedKmh: 0)
        settings.tripStopDurationS = 60
        var tracker = Tracker(fences: fences, settings: settings)
        var st: DeviceState?
        var alerts: [Alert] = []
        var trips: [Trip] = []
        // Parked in both fences, drives east out of them, parks.
        var fixes = (0..<3).map { fix(Int64($0) * 10, 0.7) }
        fixes += (1...8).map { fix(30 + Int64($0) * 60, 0.7 + Double($0) * 0.01) }
        fixes += (1...5).map { fix(600 + Int64($0) * 30, 4) }
        fixes.insert(fix(560, 4), at: 11)
        for f in fixes {
            let o = tracker.process(f, state: st)
            st = o.state
            alerts += o.alerts
            trips += o.trips
        }
        let enter = alerts.first { $0.type == .geofenceEnter && $0.fence == "dep-1" }
        #expect(enter?.details.contains(AlertDetail("fence_name", "North depot")) == true)
        let trip = trips.first
        #expect(trip?.startFence == "North depot, Yard", "\(trips)")
        #expect(trip?.startFenceId == "dep-1, yard")
        #expect(trip?.endFence == nil && trip?.endFenceId == nil)
    }

    @Test func firstFixInsideEnters() {
        let (alerts, _, _) = run([fix(1, 0.7)])
        #expect(alerts == ["geofence_enter A @1", "geofence_enter B @1"])
    }

    @Test func duplicatesAndLateFixesRaiseNothing() {
        let (alerts, state, d) = run([fix(10, -1), fix(10, 0.2), fix(5, 0.2), fix(11, -1)])
        #expect(alerts == [])
        #expect(d == [.accepted, .duplicate, .late, .accepted])
        #expect(state?.lastTime == 11_000)
    }

    @Test func invalidFixesNeverMoveTheVehicle() {
        let (alerts, state, d) = run([fix(1, -1), fix(2, 0.2, valid: false), fix(3, -1)])
        #expect(alerts == [])
        #expect(d == [.accepted, .invalid, .accepted])
        #expect(state?.fences == [])
    }

    @Test func stateCarriesOverARestart() {
        let (_, state, _) = run([fix(1, 0.2)])
        // A new tracker (a restarted daemon) with the persisted state raises no second enter.
        let (alerts, _, _) = run([fix(2, 0.3), fix(3, -1)], state: state)
        #expect(alerts == ["geofence_exit A @2"])  // crossed at 2.23 s
    }
}

@Suite struct ScreenPolicyTests {
    let now: Int64 = 1_700_000_000_000
    let policy = ScreenPolicy()

    @Test func passesOrdinaryFixes() {
        #expect(
            policy.check(
                Fix(device: "d", time: now, lat: 48, lon: 11, speedKmh: 120), receivedAtMs: now)
                == nil)
        // An invalid fix at (0, 0) is stored as invalid, not refused.
        #expect(
            policy.check(
                Fix(device: "d", time: now, lat: 0, lon: 0, valid: false), receivedAtMs: now) == nil
        )
    }

    @Test func refusesWithReasons() {
        func reason(_ f: Fix) -> RejectReason? { policy.check(f, receivedAtMs: now)?.0 }
        #expect(reason(Fix(device: "d", time: now, lat: 0, lon: 0)) == .nullIsland)
        #expect(reason(Fix(device: "d", time: now + 601_000, lat: 1, lon: 1)) == .futureTime)
        #expect(reason(Fix(device: "d", time: now + 599_000, lat: 1, lon: 1)) == nil)
        #expect(reason(Fix(device: "d", time: 946_684_799_999, lat: 1, lon: 1)) == .ancientTime)
        #expect(reason(Fix(device: "d", time: now, lat: 1, lon: 1, speedKmh: 501)) == .speedCeiling)
        #expect(reason(Fix(device: "d", time: now, lat: .nan, lon: 1)) == .latOutOfRange)
        #expect(reason(Fix(device: "d", time: now, lat: 1, lon: -180.5)) == .lonOutOfRange)
    }
}
