import FleetGeo
import Foundation
import Testing

@testable import FleetTracking

/// What a trip's late fixes add to its distance: the way through them less
/// the chord the tracked distance took, for fixes the tracker would have
/// taken.
@Suite struct LateDetourTests {
    /// One metre of latitude and of longitude at 48° N, in degrees.
    static let mLat = 1 / 111_195.08
    static let mLon = 1 / (111_195.08 * cos(48 * Double.pi / 180))

    /// A point `north` and `east` metres from (48, 11) at `t` seconds.
    func p(
        _ t: Int64, _ north: Double, _ east: Double, late: Bool = false, accuracy: Double? = nil,
        hdop: Double? = nil
    ) -> LateDetour.Point {
        LateDetour.Point(
            time: t * 1000, lat: 48 + north * Self.mLat, lon: 11 + east * Self.mLon,
            accuracyM: accuracy, hdop: hdop, late: late)
    }

    func d(_ a: LateDetour.Point, _ b: LateDetour.Point) -> Double {
        Geodesic.distance(lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
    }

    let rule = LateDetour()

    @Test func aLateFixAtACornerAddsTheWayThroughItLessTheChord() {
        // East 300 m, north 300 m: the tracked distance took the diagonal.
        let a = p(0, 0, 0)
        let c = p(20, 0, 300, late: true)
        let b = p(40, 300, 300)
        let added = rule.metres([a, b, c])  // any order
        #expect(abs(added - (d(a, c) + d(c, b) - d(a, b))) < 1e-6)
        #expect(abs(added - (600 - 300 * 2.0.squareRoot())) < 1)
    }

    @Test func runsOfLateFixesEachCountBetweenTheirOwnNeighbours() {
        let pts = [
            p(0, 0, 0), p(10, 0, 100, late: true), p(20, 0, 200, late: true), p(30, 100, 200),
            p(40, 200, 200), p(50, 200, 300, late: true), p(60, 300, 300),
        ]
        let first = d(pts[0], pts[1]) + d(pts[1], pts[2]) + d(pts[2], pts[3]) - d(pts[0], pts[3])
        let second = d(pts[4], pts[5]) + d(pts[5], pts[6]) - d(pts[4], pts[6])
        #expect(abs(rule.metres(pts) - (first + second)) < 1e-6)
    }

    @Test func noLateFixOrOnlyLateFixesAddNothing() {
        #expect(rule.metres([p(0, 0, 0), p(10, 0, 100)]) == 0)
        #expect(rule.metres([]) == 0)
        // Late fixes before the first accepted one or after the last have
        // no way through them to measure.
        #expect(
            rule.metres([p(0, 0, 0, late: true), p(10, 0, 100), p(20, 50, 100, late: true)]) == 0)
    }

    @Test func aLateFixWhileTheVehicleStoodIsScatter() {
        // Neighbours 30 m apart (within the 50 m still radius): nothing,
        // however far the late fix scattered.
        #expect(rule.metres([p(0, 0, 0), p(30, 20, 0, late: true), p(60, 30, 0)]) == 0)
    }

    @Test func aVagueLateFixAddsNothingAndAVagueNeighbourIsSkipped() {
        // Accuracy 80 m > 50 m, or HDOP 12 × 5 m: the tracker moves the
        // vehicle nowhere for such a fix.
        #expect(
            rule.metres([p(0, 0, 0), p(20, 0, 300, late: true, accuracy: 80), p(40, 300, 300)]) == 0
        )
        #expect(
            rule.metres([p(0, 0, 0), p(20, 0, 300, late: true, hdop: 12), p(40, 300, 300)]) == 0)
        // A vague accepted fix is no neighbour: the detour is measured
        // between the good fixes around it, as the odometer was.
        let a = p(0, 0, 0)
        let c = p(20, 0, 300, late: true, accuracy: 10)
        let b = p(40, 300, 300)
        let vague = p(30, 900, 900, accuracy: 200)
        let added = rule.metres([a, c, vague, b])
        #expect(abs(added - (d(a, c) + d(c, b) - d(a, b))) < 1e-6)
    }

    @Test func aLateOutlierTheJumpFilterWouldHoldAddsNothing() {
        // 3 km away one second after its neighbour: 10 800 km/h.
        let pts = [p(0, 0, 0), p(1, 3000, 0, late: true), p(2, 0, 60)]
        #expect(rule.metres(pts) == 0)
        // With the filter off (jump_speed_kmh = 0) it is still a spike out
        // and back; one that goes on (a fix 3 km on, in 40 s) counts then.
        var off = TrackerSettings()
        off.jumpSpeedKmh = 0
        #expect(LateDetour(off).metres(pts) == 0)
        let on = [p(0, 0, 0), p(20, 3000, 100, late: true), p(40, 3000, 200)]
        #expect(rule.metres(on) == 0)
        #expect(LateDetour(off).metres(on) > 90)
    }

    @Test func aLateSpikeOutAndBackAddsNothing() {
        // Between two fixes 20 s and 150 m apart, a late fix 450 m off to
        // the side and back: 126 km/h after the 100 m forgiven, no jump,
        // but a way that turns back by 170°.
        let a = p(0, 0, 0)
        let b = p(20, 0, 150)
        #expect(rule.metres([a, p(10, 440, 100, late: true), b]) == 0)
        // A real corner (90°) with legs of 250 m counts, sparse as it is.
        let corner = rule.metres([p(0, 0, 0), p(30, 0, 250, late: true), p(60, 250, 250)])
        #expect(abs(corner - (500 - 250 * 2.0.squareRoot())) < 1)
        // A turn back with short legs (scatter of a slow vehicle) counts too.
        let short = [p(0, 0, 0), p(10, 0, 90, late: true), p(20, 20, 60)]
        #expect(rule.metres(short) > 0)
    }

    @Test func theSameFixesGiveTheSameFigure() {
        let pts = [p(0, 0, 0), p(20, 0, 300, late: true), p(40, 300, 300)]
        #expect(rule.metres(pts) == rule.metres(pts.reversed()))
    }
}
