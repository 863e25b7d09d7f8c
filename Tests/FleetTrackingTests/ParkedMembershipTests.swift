import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// While a vehicle is parked, fences are judged on the mean of its parked
/// fixes, with the uncertainty of a mean; a crossing that ends within a
/// fence's margin outside it leaves the vehicle inside by the hysteresis.
@Suite struct ParkedMembershipTests {
    /// Runs fixes (seconds, lat, lon, reported accuracy) through a tracker.
    func run(_ fences: [Fence], _ fixes: [(t: Int64, lat: Double, lon: Double, acc: Double?)])
        -> [Alert]
    {
        var tracker = Tracker(fences: FenceIndex(fences: fences))
        var state: DeviceState?
        var alerts: [Alert] = []
        for f in fixes {
            let o = tracker.process(
                Fix(device: "v", time: f.t * 1000, lat: f.lat, lon: f.lon, accuracyM: f.acc),
                state: state)
            state = o.state
            alerts += o.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }
        }
        return alerts
    }

    /// Twelve hours parked 3 m west of the yard's west edge, a fix a minute
    /// with 5 m σ of scatter and an honest accuracy (7.5 m), and every hour
    /// an outlier 30 m inside that reports 7.5 m too: nothing is entered.
    /// Judged fix by fix, the outliers alone would enter it twelve times.
    @Test func parkedJustOutsideEntersNothingEvenThroughOutliers() {
        var g = Gaussian(state: 21)
        var fixes: [(t: Int64, lat: Double, lon: Double, acc: Double?)] = []
        let lat = 48.0 + 100 * mLat
        let lon = 11.0 - 3 * mLon
        for k in 0..<(12 * 60) {
            var e = 5 * g.next()
            let n = 5 * g.next()
            if k % 60 == 30 { e = 33 }  // 30 m inside the yard
            fixes.append((Int64(k * 60), lat + n * mLat, lon + e * mLon, 7.5))
        }
        #expect(run([yard()], fixes).isEmpty)
        // The same outlier seen by a vehicle on the move is entered.
        let moving: [(t: Int64, lat: Double, lon: Double, acc: Double?)] = [
            (0, lat - 900 * mLat, lon, 7.5), (30, lat - 450 * mLat, lon, 7.5),
            (60, lat, lon + 33 * mLon, 7.5),
        ]
        #expect(run([yard()], moving).map(\.type) == [.geofenceEnter])
    }

    /// Parked 5 m inside the yard's east edge from the first fix (a device
    /// switched on in its depot) with a 7.5 m accuracy: each fix alone may be
    /// on either side, but the mean of the parked fixes soon is not; the
    /// entry is dated from when the vehicle came to rest.
    @Test func parkedJustInsideIsEnteredOnTheMeanDatedFromRest() {
        var g = Gaussian(state: 5)
        var fixes: [(t: Int64, lat: Double, lon: Double, acc: Double?)] = []
        for k in 0..<120 {
            fixes.append(
                (
                    Int64(k * 60), 48.0 + 100 * mLat + 5 * g.next() * mLat,
                    11.0 + 195 * mLon + 5 * g.next() * mLon, 7.5
                ))
        }
        let alerts = run([yard()], fixes)
        #expect(alerts.map(\.type) == [.geofenceEnter])
        #expect(alerts.first?.time == 0)
    }

    /// Parked 2 m inside the yard's east edge for half an hour, a fix a
    /// minute that reports 15 m: neither a fix nor the mean is ever sure
    /// enough to enter. Driving off west across the yard, the first fix is
    /// 58 m inside: the vehicle was in the yard all along, so the entry is
    /// dated from when it came to rest there, not from its departure.
    @Test func aDepartureAcrossTheYardDatesTheEntryFromTheRestInsideIt() {
        let lat = 48.0 + 100 * mLat
        var fixes: [(t: Int64, lat: Double, lon: Double, acc: Double?)] = []
        for k in 0..<30 { fixes.append((Int64(k * 60), lat, 11.0 + 198 * mLon, 15)) }
        fixes += [
            (1805, lat, 11.0 + 140 * mLon, 5), (1815, lat, 11.0 + 60 * mLon, 5),
            (1825, lat, 11.0 - 20 * mLon, 5), (1835, lat, 11.0 - 100 * mLon, 5),
            (1845, lat, 11.0 - 180 * mLon, 5), (1855, lat, 11.0 - 260 * mLon, 5),
        ]
        let alerts = run([yard()], fixes)
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts.first?.time == 0)
    }

    /// A vehicle drives east into the yard at 6 m/s, a fix a second, and
    /// stops 23 m inside its west edge at 56 s; after 22 s more of fixes
    /// there it sends a fix a minute, the first of them scattered 10 m
    /// east. Each fix reports 15 m, too much for any of them to enter; the
    /// mean does, dated from when the vehicle came to rest: when the stay
    /// that ended the drive began (its first fix, 42 m short of the stop,
    /// at 49 s), not from the scattered fix at 138 s, which lies more than
    /// 50 m beyond that first fix but by where the stay ended.
    @Test func aStopSeenThroughSparseFixesIsParkedFromWhenTheStayBegan() {
        let lat = 48.0 + 100 * mLat
        var fixes: [(t: Int64, lat: Double, lon: Double, acc: Double?)] = []
        for k in 0...56 { fixes.append((Int64(k), lat, 11.0 + Double(6 * k - 313) * mLon, 15)) }
        for k in 57...78 { fixes.append((Int64(k), lat, 11.0 + 23 * mLon, 15)) }
        fixes.append((138, lat, 11.0 + 33 * mLon, 15))
        for k in 1...60 { fixes.append((138 + Int64(k) * 60, lat, 11.0 + 23 * mLon, 15)) }
        let alerts = run([yard()], fixes)
        #expect(alerts.map(\.type) == [.geofenceEnter])
        #expect(alerts.first?.time == 49_000)
    }

    /// A drive through the yard whose fixes, 30 s apart, fall both outside
    /// it, the second 10 m beyond its east edge, where the vehicle parks for
    /// an hour: the pass is an entry (crossed) and no exit, since the vehicle
    /// never got beyond the 20 m margin; driving off, it exits.
    @Test func aCrossingThatStopsWithinTheMarginStaysInside() {
        let lat = 48.0 + 100 * mLat
        var fixes: [(t: Int64, lat: Double, lon: Double, acc: Double?)] = [
            (0, lat, 11.0 - 600 * mLon, nil),
            (30, lat, 11.0 - 300 * mLon, nil),
            (60, lat, 11.0 - 30 * mLon, nil),
            (90, lat, 11.0 + 210 * mLon, nil),  // through the yard, 10 m beyond its east edge
        ]
        for k in 1...60 { fixes.append((Int64(90 + k * 60), lat, 11.0 + 210 * mLon, nil)) }
        for k in 1...4 {
            fixes.append((Int64(3690 + k * 20), lat, 11.0 + (210 + 150 * Double(k)) * mLon, nil))
        }
        let alerts = run([yard()], fixes)
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit], "\(alerts)")
        #expect(alerts.first?.crossed == true)
        #expect(alerts.first.map { abs($0.time - 63_750) < 100 } == true)  // where it crossed in
        #expect(alerts.last?.time == 3_710_000)  // the first fix beyond the margin
    }
}

/// Crossings are inferred on ways the odometer gate calls movement: not on
/// the chord from a parked vehicle to one scattered fix, but on a
/// departure's first leg once the next fix confirms it.
@Suite struct ParkedCrossingTests {
    func run(_ fixes: [(t: Int64, north: Double)]) -> [Alert] {
        var tracker = Tracker(fences: FenceIndex(fences: [yard()]))
        var state: DeviceState?
        var alerts: [Alert] = []
        for f in fixes {
            let o = tracker.process(
                Fix(
                    device: "v", time: f.t * 1000, lat: 48 + f.north * mLat, lon: 11 + 100 * mLon),
                state: state)
            state = o.state
            alerts += o.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }
        }
        return alerts
    }

    /// Parked 100 m south of the yard, a fix a minute; one unreported
    /// outlier 300 m north of the yard's north edge: its chord runs through
    /// the yard, but no way was driven: nothing is raised.
    @Test func anOutlierFromAParkedVehicleCrossesNothing() {
        var fixes: [(t: Int64, north: Double)] = (0..<10).map { (Int64($0) * 60, -100) }
        fixes.append((600, 500))
        fixes += (11..<20).map { (Int64($0) * 60, -100) }
        #expect(run(fixes).isEmpty)
    }

    /// The same vehicle drives off north, a fix every two minutes: the
    /// first fix beyond the yard waits for the second to confirm the
    /// departure, then the first leg's crossing is raised, dated where the
    /// way from the last fix where it stood to the first one away crossed
    /// in and out.
    @Test func aDepartureCrossesOnItsFirstLeg() {
        var fixes: [(t: Int64, north: Double)] = (0..<10).map { (Int64($0) * 60, -100) }
        fixes += [(660, 500), (780, 1100)]
        let alerts = run(fixes)
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts.allSatisfy { $0.crossed })
        #expect(zip(alerts.map(\.time), [560_000, 600_000]).allSatisfy { abs($0 - $1) < 100 })
    }
}

/// A parked vehicle that creeps away (a bus pulling out at walking pace)
/// is judged on its fixes, not on its parked mean, once two in a row lie
/// beyond half of `stillRadiusM` from the mean, on one side and receding:
/// its exit comes where it crossed out, not 25 m later when the odometer
/// gate confirms the departure. A fix that reports standing (speed 0)
/// stays on the mean.
@Suite struct CreepingDepartureTests {
    /// Parked 10 m inside the yard's north edge for ten minutes, a fix a
    /// minute; then north at 3 m/s, a fix every 2 s, speed reported or not.
    func run(speedKmh: Double?) -> [Alert] {
        var tracker = Tracker(
            fences: FenceIndex(fences: [yard(margin: 0)]),
            settings: TrackerSettings(marginM: 0, exitConfirmFixes: 1))
        var state: DeviceState?
        var alerts: [Alert] = []
        func fix(_ t: Int64, north: Double, speed: Double?) -> Fix {
            Fix(
                device: "v", time: t * 1000, lat: 48 + north * mLat, lon: 11 + 100 * mLon,
                speedKmh: speed)
        }
        var fixes = (0..<10).map { fix(Int64($0) * 60, north: 190, speed: 0) }
        fixes += (1...20).map {
            fix(600 + Int64($0) * 2, north: 190 + 6 * Double($0), speed: speedKmh)
        }
        for f in fixes {
            alerts += tracker.process(f, state: &state).alerts.filter {
                $0.type == .geofenceEnter || $0.type == .geofenceExit
            }
        }
        return alerts
    }

    /// The edge (200 m) is crossed between the first fix out (196 m) and
    /// the second (202 m), both within half the radius of the mean: the
    /// exit comes at the sixth (226 m: the second beyond 25 m of the mean,
    /// receding), dated at it; the gate confirms the departure only at the
    /// ninth (244 m: the second beyond 50 m).
    @Test func aCreepingVehicleExitsOnItsFixes() {
        let alerts = run(speedKmh: nil)
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts.last?.time == 612_000)
        #expect(run(speedKmh: 10.8).last?.time == 612_000)
    }

    /// The same fixes, each reporting speed 0 (a device that says it
    /// stands): judged on the mean until the departure is confirmed.
    @Test func aFixReportingStandingStaysOnTheMean() {
        let alerts = run(speedKmh: 0)
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts.last.map { $0.time > 612_000 } == true, "\(alerts.map(\.time))")
    }
}
