import FleetGeo
import FleetModel
import Testing

@testable import FleetTracking

/// The accuracy gate: a fix whose uncertainty reaches a fence's boundary
/// cannot change the membership on its own.
@Suite struct AccuracyGateTests {
    /// A fix at `metresWest` of the yard's west edge (negative: inside), mid-height.
    static func fix(
        _ t: Int64, west metres: Double, accuracy: Double? = nil, hdop: Double? = nil
    ) -> Fix {
        var f = Fix(
            device: "v", time: t * 1000, lat: 48.0 + 100 * mLat, lon: 11.0 - metres * mLon,
            accuracyM: accuracy)
        if let hdop {
            var e = FixExtra()
            e.hdop = hdop
            f.extra = e
        }
        return f
    }

    func alerts(_ fixes: [Fix], gate: Bool = true) -> [String] {
        var settings = TrackerSettings(exitConfirmFixes: 1, jumpSpeedKmh: 0)
        settings.accuracyGate = gate
        var tracker = Tracker(fences: FenceIndex(fences: [yard()]), settings: settings)
        var state: DeviceState?
        var out: [String] = []
        for f in fixes {
            let o = tracker.process(f, state: state)
            state = o.state
            out += o.alerts.filter { $0.type == .geofenceEnter || $0.type == .geofenceExit }
                .map { "\($0.type.rawValue) @\($0.time / 1000)" }
        }
        return out
    }

    @Test func aVagueFixOutsideRaisesNoExit() {
        let inside = Self.fix(0, west: -100, accuracy: 10)
        // 100 m outside, accurate to 2 000 m: no exit.
        #expect(alerts([inside, Self.fix(60, west: 100, accuracy: 2000)]) == ["geofence_enter @0"])
        // The same fix without an accuracy, or with the gate off: an exit,
        // dated where the way from the last fix crossed the boundary (halfway).
        #expect(
            alerts([inside, Self.fix(60, west: 100)]) == ["geofence_enter @0", "geofence_exit @30"])
        // (A fix that says it is vague ends no interpolated way: dated at it.)
        #expect(
            alerts([inside, Self.fix(60, west: 100, accuracy: 2000)], gate: false)
                == ["geofence_enter @0", "geofence_exit @60"])
        // Accurate to 45 m, 100 m out: its circle (twice that, 90 m: the
        // gate factor) stays outside, so it counts; accurate to 50 m, it
        // reaches the boundary and does not.
        #expect(
            alerts([inside, Self.fix(60, west: 100, accuracy: 45)])
                == ["geofence_enter @0", "geofence_exit @30"])
        #expect(alerts([inside, Self.fix(60, west: 100, accuracy: 50)]) == ["geofence_enter @0"])
        // The next good fix decides.
        #expect(
            alerts([
                inside, Self.fix(60, west: 100, accuracy: 2000),
                Self.fix(70, west: 100, accuracy: 8),
            ])
                == ["geofence_enter @0", "geofence_exit @70"])
    }

    @Test func aVagueFixInsideEntersNothing() {
        let outside = Self.fix(0, west: 300, accuracy: 10)
        // 50 m inside, accurate to 500 m: no enter; a good fix then enters.
        #expect(alerts([outside, Self.fix(60, west: -50, accuracy: 500)]) == [])
        #expect(
            alerts([
                outside, Self.fix(60, west: -50, accuracy: 500),
                Self.fix(70, west: -50, accuracy: 5),
            ])
                == ["geofence_enter @70"])
        // Deep inside, even a vague fix's circle lies within: it enters,
        // dated where the way crossed in (300 of its 400 m).
        #expect(
            alerts([outside, Self.fix(60, west: -100, accuracy: 45)]) == ["geofence_enter @45"])
    }

    @Test func hdopStandsInForAccuracy() {
        let inside = Self.fix(0, west: -100)
        // HDOP 40 × 5 m = 200 m of uncertainty at 100 m outside: no exit.
        #expect(alerts([inside, Self.fix(60, west: 100, hdop: 40)]) == ["geofence_enter @0"])
        // HDOP 1 = 5 m: an exit.
        #expect(
            alerts([inside, Self.fix(60, west: 100, hdop: 1)])
                == ["geofence_enter @0", "geofence_exit @30"])
    }

    @Test func aVagueFixDoesNotCancelAnExitUnderWay() {
        var settings = TrackerSettings(exitConfirmFixes: 3, jumpSpeedKmh: 0)
        settings.accuracyGate = true
        var tracker = Tracker(fences: FenceIndex(fences: [yard()]), settings: settings)
        var state: DeviceState?
        var types: [AlertType] = []
        // Inside; two good fixes out; a vague one (its circle reaches inside); a third good one.
        for f in [
            Self.fix(0, west: -100), Self.fix(10, west: 100), Self.fix(20, west: 100),
            Self.fix(30, west: 10, accuracy: 300), Self.fix(40, west: 100),
        ] {
            let o = tracker.process(f, state: state)
            state = o.state
            types += o.alerts.map(\.type).filter { $0 == .geofenceEnter || $0 == .geofenceExit }
        }
        #expect(types == [.geofenceEnter, .geofenceExit])
    }
}
