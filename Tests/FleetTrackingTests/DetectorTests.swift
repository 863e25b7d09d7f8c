import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// The tracker's detectors on their own: each takes values (a fix, the
/// device's state) and returns values, with no tracker around it.
@Suite struct DetectorTests {
    static let t0: Int64 = 1_800_000_000_000

    /// A fix at `t` seconds, `north` metres north of (48.1, 11.5).
    static func fix(_ t: Int64, north: Double, speed: Double? = nil, accuracy: Double? = nil) -> Fix
    {
        Fix(
            device: "d", time: t0 + t * 1000, lat: 48.1 + north / 111_195, lon: 11.5,
            speedKmh: speed, accuracyM: accuracy)
    }

    /// A state whose last accepted position is `north` metres north, at `t` s.
    static func state(at t: Int64, north: Double) -> DeviceState {
        DeviceState(lastTime: t0 + t * 1000, lat: 48.1 + north / 111_195, lon: 11.5, fences: [])
    }

    @Test func jumpFilterHoldsAnImpossibleFixAndMovesOnceSuspectsAgree() {
        let filter = JumpFilter(settings: TrackerSettings())
        var st = Self.state(at: 0, north: 0)
        // 10 km in 10 s: 3 600 km/h.
        st.seq = 2
        #expect(filter.screen(Self.fix(10, north: 10_000), state: &st) == .hold)
        st.seq = 3
        #expect(filter.screen(Self.fix(11, north: 10_010), state: &st) == .hold)
        #expect(st.suspects.count == 2)
        st.seq = 4
        guard case .relocate(let via) = filter.screen(Self.fix(12, north: 10_020), state: &st)
        else {
            Issue.record("the third agreeing suspect does not move the vehicle")
            return
        }
        #expect(via.map(\.time) == [Self.t0 + 10_000, Self.t0 + 11_000])
        #expect(st.suspects.isEmpty)
        // 100 m in 10 s is driving.
        var near = Self.state(at: 0, north: 0)
        #expect(filter.screen(Self.fix(10, north: 100), state: &near) == .pass)
    }

    @Test func jumpFilterHoldsAFixToTheReachOfTheSpeedItReports() {
        let filter = JumpFilter(settings: TrackerSettings())
        let last = (time: Self.t0, lat: 48.1, lon: 11.5)
        // 260 m in 5 s is 187 km/h, under the speed bound, but the fix says
        // it stands (speed 0, accuracy 5 m): beyond its reach.
        #expect(filter.isJump(from: last, to: Self.fix(5, north: 260, speed: 0, accuracy: 5)))
        #expect(!filter.isJump(from: last, to: Self.fix(5, north: 260, speed: 190, accuracy: 5)))
        // Without an accuracy, only the speed bound judges it.
        #expect(!filter.isJump(from: last, to: Self.fix(5, north: 260, speed: 0)))
        var off = TrackerSettings()
        off.jumpSpeedKmh = 0
        #expect(!JumpFilter(settings: off).isJump(from: last, to: Self.fix(1, north: 50_000)))
    }

    @Test func overspeedIsDebouncedBothWays() {
        var settings = TrackerSettings()
        settings.overspeedMinS = 30
        let detector = OverspeedDetector(settings: settings)
        var st = Self.state(at: 0, north: 0)
        var alerts: [Alert] = []
        func at(_ t: Int64, _ kmh: Double) {
            detector.advance(
                Self.fix(t, north: 0), speed: kmh, limit: 50, state: &st, alerts: &alerts)
        }
        at(0, 60)
        at(20, 70)
        #expect(alerts.isEmpty)  // over for 20 s: not yet
        at(30, 65)
        #expect(alerts.map(\.type) == [.overspeedStart])
        #expect(alerts.first?.time == Self.t0)
        at(40, 40)
        at(60, 45)
        #expect(alerts.count == 1)  // under for 20 s: not yet
        at(70, 45)
        #expect(alerts.map(\.type) == [.overspeedStart, .overspeedEnd])
        #expect(alerts.last?.time == Self.t0 + 40_000)
        #expect(alerts.last?.details.contains(AlertDetail("max_speed_kmh", 70.0)) == true)
        // A short burst over the limit raises nothing.
        alerts = []
        at(100, 80)
        at(110, 40)
        at(200, 40)
        #expect(alerts.isEmpty)
        #expect(st.overspeed == nil)
    }

    @Test func crossingTimeIsInterpolatedAlongTheWay() {
        let fence = Fence(id: "A", name: "A", shape: .polygons([box(0, 0, 1, 1)]))
        // From 0.5° west of the box to its middle, 100 s: crossed in at half way.
        let t = CrossingGeometry.crossingTime(
            fence, from: Coordinate(lat: 0.5, lon: -0.5), at: 0, to: Coordinate(lat: 0.5, lon: 0.5),
            at: 100_000)
        #expect(t.map { abs($0 - 50_000) <= 2 } == true)
        // Both ends on the same side: no crossing.
        #expect(
            CrossingGeometry.crossingTime(
                fence, from: Coordinate(lat: 0.5, lon: 0.2), at: 0,
                to: Coordinate(lat: 0.5, lon: 0.5), at: 100_000) == nil)
        // Too slow to say when it moved (111 km in a day is under 2 m/s).
        #expect(
            CrossingGeometry.crossingTime(
                fence, from: Coordinate(lat: 0.5, lon: -0.5), at: 0,
                to: Coordinate(lat: 0.5, lon: 0.5), at: 86_400_000) == nil)
    }

    @Test func aWayGrazingAnEdgeIsNoDeepPass() {
        let fence = Fence(id: "A", name: "A", shape: .polygons([box(0, 0, 0.01, 0.01)]))
        // Along the inside of the south edge, 5 m in: within a 20 m margin.
        let south = 5 / 111_195.0
        let a = Coordinate(lat: south, lon: -0.005)
        let b = Coordinate(lat: south, lon: 0.015)
        #expect(CrossingGeometry.deepPoint(fence, from: a, to: b, margin: 20) == nil)
        #expect(CrossingGeometry.deepPoint(fence, from: a, to: b, margin: 0) != nil)
        // Through the middle: deep at the first point past the west edge.
        let c = Coordinate(lat: 0.005, lon: -0.005)
        let d = Coordinate(lat: 0.005, lon: 0.015)
        let f = CrossingGeometry.deepPoint(fence, from: c, to: d, margin: 20)
        #expect(f == 5.0 / 16)
        let times = CrossingGeometry.passTimes(
            fence, from: Waypoint(time: 0, lat: c.lat, lon: c.lon, odometerM: 0, fixNo: 1), to: d,
            at: 160_000, deep: f)
        #expect(abs(times.entered - 40_000) <= 2 && abs(times.left - 120_000) <= 2)
    }

    @Test func silenceMarksTheStateAndSaysForHowLong() {
        let st = Self.state(at: 0, north: 0)
        let (alert, silent) = Silence.raise(
            st, device: "d", lastHeardMs: Self.t0, nowMs: Self.t0 + 3_600_000)
        #expect(alert.type == .deviceSilent && alert.time == Self.t0 + 3_600_000)
        #expect(alert.details.contains(AlertDetail("silent_s", 3600.0)))
        #expect(silent.silent && !st.silent)
    }
}
