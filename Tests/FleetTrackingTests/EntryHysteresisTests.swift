import FleetGeo
import FleetModel
import Testing

@testable import FleetTracking

/// The entry hysteresis (`TrackerSettings.shallowVisitS`) and crossings
/// dated by interpolation along the way between two fixes.
@Suite struct EntryHysteresisTests {
    /// Runs 1 Hz-or-sparser fixes (t s, metres north and east of the yard's
    /// south-west corner) through a tracker; "type @ms" strings.
    func run(
        _ points: [(t: Int64, north: Double, east: Double)], settings: TrackerSettings = .init()
    ) -> [String] {
        var tracker = Tracker(fences: FenceIndex(fences: [yard()]), settings: settings)
        var state: DeviceState?
        var out: [String] = []
        for p in points {
            let o = tracker.process(
                Fix(
                    device: "v", time: p.t * 1000, lat: 48.0 + p.north * mLat,
                    lon: 11.0 + p.east * mLon),
                state: state)
            state = o.state
            // Times to 10 ms: interpolated ones are bisected to 1/65 536 of a way.
            out += o.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }
                .map { "\($0.type.rawValue) @\(($0.time + 5) / 10 * 10)" }
        }
        return out
    }

    /// Driving east at 10 m/s, `depth` metres north of the yard's south
    /// edge (negative: south of it, outside), from 100 m west of the yard
    /// to 100 m east of it, a fix every `every` seconds.
    func along(depth: Double, every: Int64 = 1, speed: Double = 10) -> [(Int64, Double, Double)] {
        stride(from: 0, through: Int64(400 / speed), by: Int(every)).map {
            ($0, depth, -100 + Double($0) * speed)
        }
    }

    @Test func aShallowShortVisitRaisesNothing() {
        // 12 m inside (less than the 20 m margin) for 20 s.
        #expect(run(along(depth: 12)) == [])
        // Without the entry hysteresis it is a visit.
        var off = TrackerSettings()
        off.shallowVisitS = 0
        #expect(run(along(depth: 12), settings: off).count == 2)
    }

    @Test func aDeepVisitIsRaisedAtOnceAndDatedWhereItCrossedIn() {
        // 50 m inside: entered at 10 s (100 m at 10 m/s), left at 30 s.
        #expect(
            run(along(depth: 50, every: 3)) == ["geofence_enter @10000", "geofence_exit @30000"])
    }

    @Test func aShallowLongVisitIsRaisedAfterTheHold() {
        // 12 m inside at 2 m/s: 100 s inside. Raised once inside 60 s,
        // dated from the entry (50 s); the exit from the first fix beyond
        // the margin (165 s: 20 m out at 160 s, plus the 5 s interval).
        let fixes = along(depth: 12, every: 5, speed: 2)
        #expect(run(fixes) == ["geofence_enter @50000", "geofence_exit @165000"])
        // The enter waits for the hold: nothing before 110 s.
        #expect(run(fixes.filter { $0.0 < 110 }) == [])
    }

    @Test func aSparseFixNearTheEdgeOfAFenceDrivenThroughCounts() {
        // North through the yard 100 m from its west edge, a fix every 25 s
        // at 10 m/s: the one fix inside is 10 m deep (shallow), but the way
        // on from it goes 100 m deep. A visit, dated where the ways crossed.
        let fixes: [(Int64, Double, Double)] = [
            (0, -240, 100), (25, 10, 100), (50, 260, 100), (75, 510, 100), (100, 760, 100),
        ]
        #expect(run(fixes) == ["geofence_enter @24000", "geofence_exit @44000"])
    }

    @Test func aWayDrivenDeepConfirmsAnEntryTheGateWouldHold() {
        // Across the yard's south-west corner, a fix every 10 s, each
        // accurate to 8 m (the gate: 16 m). The one fix inside is 3 m from
        // the south edge, within its gate; the way to it from 5 m outside
        // the west edge passes 27 m deep. A visit, dated where the ways
        // crossed the west edge (10.77 s) and the south edge (20.53 s).
        let points: [(Int64, Double, Double)] = [
            (0, 117, -70), (10, 60, -5), (20, 3, 60), (30, -54, 125), (40, -111, 190),
            (50, -168, 255),
        ]
        var tracker = Tracker(fences: FenceIndex(fences: [yard()]))
        var state: DeviceState?
        var alerts: [Alert] = []
        for (t, north, east) in points {
            var fix = Fix(
                device: "v", time: t * 1000, lat: 48.0 + north * mLat, lon: 11.0 + east * mLon)
            fix.accuracyM = 8
            let o = tracker.process(fix, state: state)
            state = o.state
            alerts += o.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }
        }
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(abs((alerts.first?.time ?? 0) - 10_770) < 100)
        #expect(abs((alerts.last?.time ?? 0) - 20_530) < 100)
    }

    @Test func aWayBackThroughAFenceWhileLeavingItIsAVisit() {
        // East out of the yard (crossing its east edge at 16.15 s), then,
        // before three fixes beyond the margin confirm the exit, a sparse
        // way from 25 m east of it to 50 m north of it that cuts back
        // through its north-east corner 22 m deep: in at 22 s through the
        // east edge, out at 26.67 s through the north one. The exit is
        // confirmed and the pass is a crossed pair.
        let fixes: [(Int64, Double, Double)] = [
            (0, 100, 100), (10, 100, 160), (20, 100, 225), (30, 250, 100), (40, 350, 100),
            (50, 450, 100),
        ]
        #expect(
            run(fixes) == [
                "geofence_enter @0", "geofence_exit @16150", "geofence_enter @22000",
                "geofence_exit @26670",
            ])
    }

    @Test func aChordBetweenTwoShallowFixesInsideIsNoDeepWay() {
        // Round the yard's south-west corner inside it, a fix a second: 12 m
        // from the south edge, then 12 m from the west edge. The chord
        // between them passes 26 m deep, but both its ends are inside:
        // scatter across a corner, not a way driven deeper. Nothing raised.
        let fixes: [(Int64, Double, Double)] = [
            (0, -10, 60), (1, 12, 40), (2, 40, 12), (3, 60, -10), (4, 80, -40), (5, 100, -70),
        ]
        #expect(run(fixes) == [])
    }

    @Test func anExitAfterATunnelIsDatedWhereTheWayCrossedOut() {
        // East at 10 m/s through the yard, a fix every 2 s, then no fix for
        // 100 s (a tunnel) from 100 m inside: the east edge is 100 m of the
        // 1 000 m way, crossed at 30 s.
        var fixes = (0...10).map { (Int64($0 * 2), 100.0, -100.0 + Double($0) * 20) }
        fixes += [(120, 100, 1100), (122, 100, 1120), (124, 100, 1140)]
        #expect(run(fixes) == ["geofence_enter @10000", "geofence_exit @30000"])
    }

    @Test func aVehicleThatStoodIsNotInterpolated() {
        // Drove in and stood inside, no fix for an hour, then 700 m east: it
        // is not known when it drove off, so the exit is dated at the fix.
        var fixes = (0...10).map { (Int64($0 * 2), 100.0, -100.0 + Double($0) * 20) }
        fixes += [(3600, 100, 900), (3610, 100, 1000), (3620, 100, 1100)]
        #expect(run(fixes).last == "geofence_exit @3600000")
    }
}
