import FleetGeo
import FleetJSON
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// Metres → degrees around 48° N (for building test tracks).
let mLat = 1 / 111_195.08
let mLon = 1 / (111_195.08 * cos(48 * Double.pi / 180))

/// A 200 m × 200 m yard with its south-west corner at 48° N, 11° E.
func yard(margin: Double? = nil, dwell: Double? = nil) -> Fence {
    let x0 = 11.0
    let y0 = 48.0
    let x1 = x0 + 200 * mLon
    let y1 = y0 + 200 * mLat
    var props: [(key: String, value: JSONValue)] = []
    if let margin { props.append(("margin_m", .number(margin))) }
    return Fence(
        id: "yard", name: "Yard",
        shape: .polygons([box(x0, y0, x1, y1)]), marginM: margin, dwellS: dwell,
        properties: .object(props))
}

/// A deterministic normal generator (Box–Muller over SplitMix64).
struct Gaussian {
    var state: UInt64
    mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    mutating func next() -> Double {
        sqrt(-2 * log(max(uniform(), 1e-300))) * cos(2 * Double.pi * uniform())
    }
}

@Suite struct GeofenceBehaviourTests {
    func run(
        _ fences: [Fence], _ points: [(t: Int64, lat: Double, lon: Double)],
        settings: TrackerSettings = .init()
    )
        -> [Alert]
    {
        var tracker = Tracker(fences: FenceIndex(fences: fences), settings: settings)
        var state: DeviceState?
        var alerts: [Alert] = []
        for p in points {
            let o = tracker.process(
                Fix(device: "v", time: p.t * 1000, lat: p.lat, lon: p.lon), state: state)
            state = o.state
            alerts += o.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }
        }
        return alerts
    }

    @Test func exitOnlyBeyondTheMarginAndItSaysHowLong() {
        let y = 48.0 + 100 * mLat
        let inside = 11.0 + 100 * mLon
        let just = 11.0 - 10 * mLon  // 10 m west of the west edge
        let far = 11.0 - 30 * mLon  // 30 m west
        let track: [(t: Int64, lat: Double, lon: Double)] = [
            (0, y, inside), (60, y, just), (120, y, inside), (180, y, far), (190, y, far),
        ]
        // Two fixes beyond the margin do not confirm an exit; the third does, dated from the first.
        #expect(run([yard()], track).map(\.type) == [.geofenceEnter])
        let alerts = run([yard()], track + [(200, y, far)])
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts[1].time == 180_000 && alerts[1].durationS == 180)
        // A fix back within the margin resets the count.
        #expect(
            run([yard()], track + [(195, y, just), (200, y, far)]).map(\.type) == [.geofenceEnter])
        // Margin 0 turns hysteresis off: 10 m out is out.
        let strict = run(
            [yard(margin: 0)], [(0, y, inside), (60, y, just)], settings: .init(exitConfirmFixes: 1)
        )
        #expect(strict.map(\.type) == [.geofenceEnter, .geofenceExit])
    }

    @Test func drivingAlongAnEdgeWithJitterRaisesAtMostOnePair() {
        var g = Gaussian(state: 5)
        var points: [(Int64, Double, Double)] = []
        // Along the west edge, 300 m south to north, a fix a second, 5 m σ of jitter across it.
        for k in 0..<300 {
            let lat = 48.0 - 50 * mLat + Double(k) * mLat
            points.append((Int64(k), lat, 11.0 + 5 * g.next() * mLon))
        }
        let alerts = run([yard()], points)
        #expect(alerts.count <= 2, "\(alerts.map(\.type))")
    }

    /// Parked on the edge for a day with 10 m σ of jitter: the margin plus
    /// the three-fix confirmation keep it in (one fix in 40 lands beyond 20 m).
    @Test func parkedOnAnEdgeForADayDoesNotFlap() {
        var g = Gaussian(state: 9)
        var points: [(Int64, Double, Double)] = []
        for k in 0..<(24 * 360) {  // one fix per 10 s for 24 h, parked on the west edge
            points.append(
                (
                    Int64(k * 10), 48.0 + 100 * mLat + 10 * g.next() * mLat,
                    11.0 + 10 * g.next() * mLon
                ))
        }
        let alerts = run([yard()], points)
        #expect(alerts.filter { $0.type == .geofenceExit }.isEmpty)
        #expect(alerts.filter { $0.type == .geofenceEnter }.count <= 1)
        // Without the margin it flaps (the parked mean sits on the edge);
        // with it, the parked mean alone holds it in, even without the
        // three-fix confirmation.
        #expect(run([yard(margin: 0)], points).count > 100)
        #expect(run([yard()], points, settings: .init(exitConfirmFixes: 1)).count <= 1)
    }

    @Test func dwellHoldsTheAlertAndDatesItFromTheStart() {
        let y = 48.0 + 100 * mLat
        let inside = 11.0 + 100 * mLon
        let outside = 11.0 - 500 * mLon
        // A 30 s visit: no alert with a 60 s dwell.
        #expect(
            run([yard(dwell: 60)], [(0, y, outside), (10, y, inside), (40, y, outside)]).isEmpty)
        // A long stay: enter dated when it began (where the way from the
        // fix outside crossed in, 500 + 100 m in 10 s: 8.333 s); exit
        // likewise, after the dwell outside.
        let alerts = run(
            [yard(dwell: 60)],
            [
                (0, y, outside), (10, y, inside), (40, y, inside), (80, y, inside),
                (100, y, outside), (130, y, outside), (170, y, outside),
            ])
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts.map(\.time) == [8_333, 83_333])
        #expect(alerts[1].durationS == 75)
    }

    @Test func aFenceWithoutAMarginIsCrossedByTheSlightestClip() {
        // A 1.4 km segment clipping the yard's south-east corner by 3.5 m
        // (7 m of it inside, between two of the points sampled for depth):
        // with margin 0 any cut is a pass, dated halfway.
        let a = (t: Int64(0), lat: 48.0 - 510 * mLat, lon: 11.0 - 315 * mLon)
        let b = (t: Int64(120), lat: 48.0 + 490 * mLat, lon: 11.0 + 685 * mLon)
        let alerts = run([yard(margin: 0)], [a, b])
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts.map(\.time) == [60_000, 60_000])
    }

    @Test func aSparseTrackCuttingACornerRaisesACrossedPair() {
        // One fix per 2 minutes; the segment between two fixes cuts the yard's south-east corner:
        // in through the south edge 80 m west of the corner, out through the east edge 80 m north
        // of it, 40 m deep at its deepest (more than the 20 m margin).
        let a = (t: Int64(0), lat: 48.0 - 60 * mLat, lon: 11.0 + 60 * mLon)
        let b = (t: Int64(120), lat: 48.0 + 140 * mLat, lon: 11.0 + 260 * mLon)
        let alerts = run([yard()], [a, b])
        #expect(alerts.map(\.type) == [.geofenceEnter, .geofenceExit])
        #expect(alerts.allSatisfy { $0.crossed })
        // Dated where the way crossed in and out: 18 % and 70 % of it.
        #expect(zip(alerts.map(\.time), [36_000, 84_000]).allSatisfy { abs($0 - $1) < 100 })
        #expect(alerts[0].detailsJSON == #"{"crossed":true,"fence_name":"Yard"}"#)
        // A segment passing beside it raises nothing.
        let c = (t: Int64(240), lat: 48.0 + 260 * mLat, lon: 11.0 + 400 * mLon)
        #expect(run([yard()], [b, c]).isEmpty)
        // Nor one grazing the corner, never more than the margin inside
        // (in 180 m east of the corner's west side, out 13 m north of it).
        let d = (t: Int64(0), lat: 48.0 - 40 * mLat, lon: 11.0 + 120 * mLon)
        let e = (t: Int64(120), lat: 48.0 + 40 * mLat, lon: 11.0 + 240 * mLon)
        #expect(run([yard()], [d, e]).isEmpty)
    }

    @Test func membershipsSurviveTheirTextForm() {
        let s = DeviceState(
            lastTime: 5, lat: 1, lon: 2,
            fences: [
                FenceMembership(fence: "a b", phase: .inside(since: 1)),
                FenceMembership(fence: "c", phase: .entering(since: 2)),
                FenceMembership(fence: "d", phase: .exiting(enteredAt: 1, since: 3, fixes: 2)),
            ])
        #expect(DeviceState.fences(fromText: s.fencesText, lastTime: 5) == s.fences)
        // The first schema stored bare ids: inside since the last fix.
        #expect(
            DeviceState.fences(fromText: "x\ny", lastTime: 7).map(\.phase) == [
                .inside(since: 7), .inside(since: 7),
            ])
    }
}
