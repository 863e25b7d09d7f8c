import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// Synthetic tracks for the complaints managers file against tracking
/// servers: parked odometers that grow, jump filters that lock devices out,
/// overspeed that flaps, trips that never end.
@Suite struct TrackingScenarioTests {
    /// Metres east/north of 48° N, 11° E → a fix.
    func at(
        _ t: Int64, _ east: Double, _ north: Double, speed: Double? = nil, ignition: Bool? = nil
    )
        -> Fix
    {
        Fix(
            device: "v", time: t * 1000, lat: 48 + north * mLat, lon: 11 + east * mLon,
            speedKmh: speed, ignition: ignition)
    }

    @Test func aParkedDayOfJitterAddsNoDistanceNoTripAndNoFlapping() {
        // The yard's west edge runs through the parking spot (lon 11.0).
        var replay = Replay(fences: FenceIndex(fences: [yard()]))
        var g = Gaussian(state: 42)
        var fixes: [Fix] = []
        for k in 0..<(24 * 360) {  // one fix per 10 s for 24 h, σ = 10 m on each axis
            fixes.append(at(Int64(k) * 10, 10 * g.next(), 100 + 10 * g.next()))
        }
        replay.feed(fixes)
        let state = replay.states["v"]!
        // A naive haversine sum over the same fixes:
        var naive = 0.0
        for k in 1..<fixes.count {
            naive += Haversine.distance(
                lat1: fixes[k - 1].lat, lon1: fixes[k - 1].lon, lat2: fixes[k].lat,
                lon2: fixes[k].lon)
        }
        #expect(naive > 100_000)
        #expect(state.odometerM < 20, "odometer grew \(state.odometerM) m (naive sum \(naive) m)")
        #expect(replay.trips.isEmpty)
        #expect(!replay.alerts.contains { $0.type == .tripStart })
        let fence = replay.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }
        #expect(fence.count <= 1, "\(fence.map(\.type))")
        #expect(!replay.dispositions.contains(.jump))
    }

    @Test func aSingleSpikeIsRejectedAndTheVehicleStays() {
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed([at(0, 0, 0), at(1, 10, 0), at(2, 3000, 0), at(3, 20, 0), at(4, 30, 0)])
        #expect(replay.dispositions == [.accepted, .accepted, .jump, .accepted, .accepted])
        let s = replay.states["v"]!
        #expect(abs(s.lon - (11 + 30 * mLon)) < 1e-12)
        #expect(s.odometerM < 60)
    }

    @Test func aRealJumpMovesTheVehicleAfterKAgreeingFixes() {
        var replay = Replay(fences: FenceIndex(fences: []))
        // Driving east at 10 m/s, then the receiver jumps 5 km north and stays right.
        var fixes = (0..<10).map { at(Int64($0), Double($0) * 10, 0) }
        fixes += (10..<16).map { at(Int64($0), Double($0) * 10, 5000) }
        replay.feed(fixes)
        #expect(
            Array(replay.dispositions[10...]) == [
                .jump, .jump, .accepted, .accepted, .accepted, .accepted,
            ])
        let s = replay.states["v"]!
        #expect(abs(s.lat - (48 + 5000 * mLat)) < 1e-12)
        // Driven: 90 m before, 20 m through the suspects, 30 m after; the jump itself not.
        #expect(abs(s.odometerM - 140) < 1, "\(s.odometerM)")
        #expect(s.suspects.isEmpty)
    }

    /// A fix every 6 s at 55 km/h (15.3 m/s), accurate to 8 m.
    func drive(_ k: Int, east: Double? = nil, north: Double = 0, speed: Double? = 55) -> Fix {
        var f = at(Int64(k) * 6, east ?? Double(k) * 6 * 55 / 3.6, north, speed: speed)
        f.accuracyM = 8
        return f
    }

    @Test func anOutlierBeyondItsOwnSpeedsReachIsASuspect() {
        // 300 m north of the road: 314 m from the last fix, 128 km/h after
        // forgiving 100 m (within 300), beyond the 230 m that 55 km/h
        // reaches in 6 s (92 m + 5 m/s² × 36 s² / 2 + 6 × 8 m).
        let fixes = [drive(0), drive(1), drive(2), drive(3, north: 300), drive(4), drive(5)]
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(fixes)
        #expect(
            replay.dispositions == [.accepted, .accepted, .accepted, .jump, .accepted, .accepted])
        let s = replay.states["v"]!
        // Only the road: 5 × 91.7 m (on the ellipsoid, within 3 m).
        #expect(abs(s.odometerM - 5 * 6 * 55 / 3.6) < 3, "\(s.odometerM)")
        // Off (jump_deceleration_mps2 = 0), or a fix reporting no speed:
        // the speed bound alone lets it through, and its detour counts.
        var off = TrackerSettings()
        off.jumpDecelerationMps2 = 0
        var loose = Replay(fences: FenceIndex(fences: []), settings: off)
        loose.feed(fixes)
        #expect(!loose.dispositions.contains(.jump))
        #expect(loose.states["v"]!.odometerM > s.odometerM + 300)
        var unreported = fixes
        unreported[3].speedKmh = nil
        var blind = Replay(fences: FenceIndex(fences: []))
        blind.feed(unreported)
        #expect(blind.dispositions[3] == .accepted)
        #expect(blind.states["v"]!.odometerM > s.odometerM + 300)
    }

    @Test func aVehicleSpeedingUpOrBrakingHardStaysWithinItsReach() {
        // From 0 to 100 km/h in 10 s (2.8 m/s²), then braking from 100 km/h
        // to 10 km/h in 5 s (5 m/s²), a fix a second, each reporting the
        // speed it has at that moment: every fix accepted.
        var fixes: [Fix] = []
        var x = 0.0
        var v = 0.0
        for t in 0...20 {
            var f = at(Int64(t), x, 0, speed: v * 3.6)
            f.accuracyM = 3
            fixes.append(f)
            let a = t < 10 ? 100 / 3.6 / 10 : t < 15 ? -90 / 3.6 / 5 : 0
            x += v + a / 2
            v += a
        }
        // A sparse device: a fix every 30 s, braking from 90 km/h to a stop
        // within the interval, and setting off to 40 km/h within the next.
        var sparse = [at(0, 0, 0, speed: 90), at(30, 300, 0, speed: 5), at(60, 500, 0, speed: 40)]
        for k in sparse.indices { sparse[k].accuracyM = 8 }
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(fixes)
        var slow = Replay(fences: FenceIndex(fences: []))
        slow.feed(sparse)
        #expect(!replay.dispositions.contains(.jump))
        #expect(!slow.dispositions.contains(.jump))
    }

    @Test func anOutlierAsTheVehicleStopsIsASuspect() {
        // Parked, a fix every 4 s reporting 0 km/h; one lands 260 m away:
        // within 300 km/h after forgiving 100 m, beyond the 88 m that 0 km/h
        // reaches in 4 s (5 m/s² × 16 s² / 2 + 6 × 8 m).
        var fixes: [Fix] = []
        for k in 0..<6 {
            var f = at(Int64(k) * 4, k == 3 ? 260 : 0, 0, speed: 0)
            f.accuracyM = 8
            fixes.append(f)
        }
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(fixes)
        #expect(
            replay.dispositions == [.accepted, .accepted, .accepted, .jump, .accepted, .accepted])
    }

    @Test func aDeviceReportingSpeedZeroWhileDrivingIsNotLockedOut() {
        // 90 km/h (25 m/s), a fix every 5 s, each reporting 0 km/h: every
        // fix lies 125 m on, beyond 0 km/h's reach of 110.5 m. Suspects agree
        // by the speed bound alone: the vehicle is moved through them.
        var fixes: [Fix] = []
        for k in 0..<12 {
            var f = at(Int64(k) * 5, Double(k) * 125, 0, speed: 0)
            f.accuracyM = 8
            fixes.append(f)
        }
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(fixes)
        let s = replay.states["v"]!
        // It follows, at most two fixes behind (the suspects that confirm a move).
        #expect(abs(s.lon - (11 + 11 * 125 * mLon)) <= 2 * 125 * mLon + 1e-9, "\(s.lon)")
        #expect(replay.dispositions.filter { $0 == .accepted }.count >= 6, "\(replay.dispositions)")
    }

    @Test func aRealJumpWithReportedSpeedsStillMovesTheVehicle() {
        // The receiver jumps 2 km north while driving: its fixes there agree
        // with one another by both tests, and the vehicle is moved after three.
        var fixes = (0..<5).map { drive($0) }
        fixes += (5..<10).map { drive($0, north: 2000) }
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed(fixes)
        #expect(
            Array(replay.dispositions[5...]) == [.jump, .jump, .accepted, .accepted, .accepted])
    }

    @Test func suspectsOutsideTheWindowDoNotCount() {
        var settings = TrackerSettings()
        settings.jumpConfirmFixes = 2
        settings.jumpWindowFixes = 3
        var replay = Replay(fences: FenceIndex(fences: []), settings: settings)
        // A spike, three good fixes, a spike at the same place: the first is out of the window.
        replay.feed([
            at(0, 0, 0), at(1, 0, 5000), at(2, 5, 0), at(3, 10, 0), at(4, 15, 0), at(5, 0, 5000),
        ])
        #expect(replay.dispositions == [.accepted, .jump, .accepted, .accepted, .accepted, .jump])
        // Within the window, two agreeing suspects move the vehicle.
        replay.feed([at(6, 0, 5010)])
        #expect(replay.dispositions.last == .accepted)
    }

    @Test func suspectsSurviveARestart() {
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed([at(0, 0, 0), at(1, 10, 0), at(2, 10, 5000), at(3, 10, 5010)])
        #expect(replay.states["v"]!.suspects.count == 2)
        replay.reloadStates()
        replay.feed([at(4, 10, 5020)])
        #expect(replay.dispositions.last == .accepted)
    }

    @Test func overspeedStartsAndEndsOnceAfterTheMinimumDuration() {
        var settings = TrackerSettings()
        settings.speedLimitKmh = 50
        settings.overspeedMinS = 10
        var replay = Replay(fences: FenceIndex(fences: []), settings: settings)
        var fixes: [Fix] = []
        var x = 0.0
        // 60 s at 40 km/h, a 5 s burst at 70 (too short), 40 s at 40, 60 s at 80 with
        // one-second blips under the limit, then 60 s at 40.
        var speeds = Array(repeating: 40.0, count: 60) + Array(repeating: 70.0, count: 5)
        speeds += Array(repeating: 40.0, count: 40)
        speeds += (0..<60).map { $0 % 15 == 12 ? 45.0 : 80.0 + Double($0 % 5) }
        speeds += Array(repeating: 40.0, count: 60)
        for (k, v) in speeds.enumerated() {
            x += v / 3.6
            fixes.append(at(Int64(k), x, 0, speed: v))
        }
        replay.feed(fixes)
        let os = replay.alerts.filter { $0.type == .overspeedStart || $0.type == .overspeedEnd }
        #expect(os.map(\.type) == [.overspeedStart, .overspeedEnd])
        #expect(os.first?.time == 105_000)
        #expect(os.last?.time == 165_000)
        #expect(os.last?.details.contains(AlertDetail("max_speed_kmh", 84)) == true)
        #expect(os.last?.details.contains(AlertDetail("duration_s", 60)) == true)
    }

    @Test func aFenceWithALowerLimitApplies() {
        var settings = TrackerSettings()
        settings.speedLimitKmh = 100
        settings.overspeedMinS = 0
        let school = Fence(
            id: "school", name: "School", shape: .polygons([box(11, 48, 11.01, 48.01)]),
            speedLimitKmh: 30)
        var replay = Replay(fences: FenceIndex(fences: [school]), settings: settings)
        replay.feed([
            at(0, -500, 100, speed: 50), at(10, -400, 100, speed: 50), at(20, 100, 100, speed: 50),
        ])
        let os = replay.alerts.filter { $0.type == .overspeedStart }
        #expect(os.count == 1)
        #expect(os.first?.details.contains(AlertDetail("limit_kmh", 30)) == true)
    }

    @Test func aTripStartsAfterTheDistanceAndEndsAfterTheStay() {
        var replay = Replay(fences: FenceIndex(fences: []))
        var fixes = (0..<30).map { at(Int64($0) * 10, 0, 0) }  // parked 5 min
        fixes += (1...60).map { at(300 + Int64($0) * 5, Double($0) * 50, 0) }  // 3 km at 36 km/h
        fixes += (1...40).map { at(600 + Int64($0) * 10, 3000, 0) }  // parked 400 s
        replay.feed(fixes)
        #expect(replay.trips.count == 1)
        let trip = replay.trips[0]
        #expect(trip.start.time == 290_000)  // the last fix where it stood
        #expect(trip.end.time == 600_000)  // where it came to rest
        // 3 000 "sphere metres" east along 48° N, on the ellipsoid.
        let metres = Geodesic.distance(lat1: 48, lon1: 11, lat2: 48, lon2: 11 + 3000 * mLon)
        #expect(abs(trip.distanceM - metres) < 1)
        #expect(abs(trip.averageSpeedKmh - metres / 310 * 3.6) < 0.1)
        #expect(trip.maxSpeedKmh >= trip.averageSpeedKmh)
        #expect(replay.alerts.map(\.type) == [.tripStart, .tripEnd])
        #expect(replay.alerts[1].time == 600_000)
    }

    @Test func aGapEndsTheTripAtTheLastFixBeforeIt() {
        var replay = Replay(fences: FenceIndex(fences: []))
        var fixes = (0..<40).map { at(Int64($0) * 10, Double($0) * 100, 0) }  // driving
        fixes.append(at(390 + 7200, 10_000, 0))  // two hours later, elsewhere
        replay.feed(fixes)
        #expect(replay.trips.count == 1)
        #expect(replay.trips.first?.end.time == 390_000)
        // The gap's straight line is not driven distance.
        let metres = Geodesic.distance(lat1: 48, lon1: 11, lat2: 48, lon2: 11 + 3900 * mLon)
        #expect(abs((replay.states["v"]?.odometerM ?? 0) - metres) < 1)
    }

    @Test func ignitionOffEndsTheTripWhenConfigured() {
        var settings = TrackerSettings()
        settings.ignitionEndsTrip = true
        var replay = Replay(fences: FenceIndex(fences: []), settings: settings)
        var fixes = (0..<20).map { at(Int64($0) * 10, Double($0) * 100, 0, ignition: true) }
        fixes.append(at(200, 2000, 0, ignition: false))
        fixes.append(at(210, 2000, 0, ignition: false))
        replay.feed(fixes)
        #expect(replay.trips.count == 1)
        #expect(replay.trips.first?.end.time == 200_000)
    }

    @Test func silenceAndReturn() {
        var replay = Replay(fences: FenceIndex(fences: []))
        replay.feed([at(0, 0, 0)])
        let (alert, silent) = Silence.raise(
            replay.states["v"]!, device: "v", lastHeardMs: 5_000, nowMs: 3_605_000)
        #expect(alert.type == .deviceSilent)
        #expect(alert.details.contains(AlertDetail("silent_s", 3600)))
        replay.states["v"] = silent
        replay.reloadStates()
        #expect(replay.states["v"]!.silent)
        replay.feed([at(4000, 0, 0)])
        #expect(replay.alerts.map(\.type) == [.deviceBack])
        #expect(replay.alerts[0].details == [AlertDetail("silent_s", 4000)])
        #expect(replay.states["v"]!.silent == false)
    }

    @Test func theStoredStateRoundTripsExactly() {
        var replay = Replay(fences: FenceIndex(fences: [yard()]))
        var g = Gaussian(state: 7)
        var fixes: [Fix] = []
        for k in 0..<400 {
            fixes.append(at(Int64(k) * 3, Double(k) * 7 + g.next(), 100 + g.next(), speed: 60))
        }
        for k in 0..<400 {
            let s = fixes[k]
            replay.feed([s])
            let state = replay.states["v"]!
            #expect(Replay.reloaded(state) == state, "fix \(k): \(DeviceStateText.encode(state))")
            // The text form of v5-v6 predates the stay's recent point and the speed span.
            var old = state
            old.window = nil
            if case .moving(let rest, var stay) = old.motion {
                (stay.recentLat, stay.recentLon) = (0, 0)
                old.motion = .moving(rest: rest, stay: stay)
            }
            var back = Replay.reloadedFromText(state)
            if case .moving(let rest, var stay) = back.motion {
                (stay.recentLat, stay.recentLon) = (0, 0)
                back.motion = .moving(rest: rest, stay: stay)
            }
            #expect(back == old, "fix \(k): the text form of v5-v6")
        }
    }
}
