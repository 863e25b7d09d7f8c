import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// What a device says of itself: ignition changes, idling, its alarms.
@Suite struct DeviceIOTests {
    /// A fix at `t` seconds, `east` metres east of (48.1, 11.5), with `ignition`.
    static func at(
        _ t: Int64, east: Double = 0, ignition: Bool?, valid: Bool = true, alarm: String? = nil
    ) -> Fix {
        var f = Fix(
            device: "d", time: 1_800_000_000_000 + t * 1000, lat: 48.1,
            lon: 11.5 + east / (111_320 * cos(48.1 * .pi / 180)), speedKmh: nil, accuracyM: 5,
            ignition: ignition, valid: valid)
        if let alarm {
            var x = FixExtra()
            x.alarm = alarm
            f.extra = x
        }
        return f
    }

    /// The alerts of `fixes` (other than trips), as "type @s [detail]".
    static func run(_ fixes: [Fix], settings: TrackerSettings = TrackerSettings()) -> [String] {
        var tracker = Tracker(fences: FenceIndex(fences: []), settings: settings)
        var st: DeviceState?
        var out: [String] = []
        for f in fixes {
            let o = tracker.process(f, state: &st)
            for a in o.alerts where a.type != .tripStart && a.type != .tripEnd {
                var line = "\(a.type.rawValue) @\((a.time - 1_800_000_000_000) / 1000)"
                if let d = a.durationS { line += " \(Int(d))s" }
                if a.type == .idleEnd {
                    // Where it stood: metres east of the start.
                    let east = (a.lon - 11.5) * 111_320 * cos(48.1 * .pi / 180)
                    line += " at \(Int(east.rounded()))m"
                }
                for case let d in a.details where d.key == "alarm" {
                    if case .text(let t) = d.value { line += " \(t)" }
                }
                out.append(line)
            }
        }
        // The state survives its stored form at every step.
        if let st {
            let back = DeviceStateCodec.encode(st).withUnsafeBytes { DeviceStateCodec.decode($0) }
            #expect(back?.ignition == st.ignition && back?.idle == st.idle)
        }
        return out
    }

    @Test func ignitionChangesAreAlertsAndTheFirstReportIsNot() {
        let alerts = Self.run([
            Self.at(0, ignition: nil), Self.at(10, ignition: false), Self.at(20, ignition: false),
            Self.at(30, ignition: true), Self.at(40, ignition: nil), Self.at(50, ignition: true),
            Self.at(60, ignition: false),
        ])
        #expect(alerts == ["ignition_on @30", "ignition_off @60"])
    }

    @Test func aFixWithoutPositionStillReportsItsIgnition() {
        var tracker = Tracker(fences: FenceIndex(fences: []), settings: TrackerSettings())
        var st: DeviceState?
        _ = tracker.process(Self.at(0, ignition: false), state: &st)
        var noFix = Self.at(10, ignition: true, valid: false)
        noFix.lat = 0
        noFix.lon = 0
        let o = tracker.process(noFix, state: &st)
        #expect(o.disposition == .invalid)
        #expect(o.alerts.map(\.type) == [.ignitionOn])
        #expect(o.alerts.first?.lat == 48.1)  // at the last known position
    }

    /// Standing with the engine running for ten minutes, fixes every 30 s,
    /// then the engine off: idling from when it came to rest.
    @Test func standingWithTheEngineOnIsIdlingUntilTheEngineGoesOff() {
        var fixes = [Self.at(0, ignition: true)]
        for k in 1...20 { fixes.append(Self.at(Int64(k) * 30, ignition: true)) }
        fixes.append(Self.at(630, ignition: false))
        let alerts = Self.run(fixes)
        #expect(alerts == ["idle_start @0", "ignition_off @630", "idle_end @630 630s at 0m"])
    }

    @Test func idlingEndsWhenTheVehicleDrivesOff() {
        var fixes: [Fix] = []
        for k in 0...12 { fixes.append(Self.at(Int64(k) * 30, ignition: true)) }
        // Drives off east at 10 m/s from 360 s.
        for k in 1...10 {
            fixes.append(Self.at(360 + Int64(k) * 10, east: Double(k) * 100, ignition: true))
        }
        let alerts = Self.run(fixes)
        #expect(alerts.first == "idle_start @0")
        // Ended at the last fix standing (360 s), when the departure is confirmed.
        #expect(alerts.dropFirst().first == "idle_end @360 360s at 0m")
        #expect(alerts.count == 2)
    }

    @Test func aShortStopOrTheEngineOffIsNotIdling() {
        // Engine on, standing 4 minutes: under idle_after_s (300 s).
        var fixes: [Fix] = []
        for k in 0...8 { fixes.append(Self.at(Int64(k) * 30, ignition: true)) }
        fixes.append(Self.at(270, ignition: false))
        // Then parked, engine off, an hour.
        for k in 1...120 { fixes.append(Self.at(270 + Int64(k) * 30, ignition: false)) }
        #expect(Self.run(fixes) == ["ignition_off @270"])
        // And with idling off, ten minutes of it raise nothing.
        var s = TrackerSettings()
        s.idleAfterS = 0
        let long = (0...20).map { Self.at(Int64($0) * 30, ignition: true) }
        #expect(Self.run(long, settings: s).isEmpty)
    }

    /// Idling begins when the engine starts, not when the vehicle came to
    /// rest before it (engine off, parked, then started and left running).
    @Test func idlingBeginsWhenTheEngineStartsOnAParkedVehicle() {
        var fixes: [Fix] = []
        for k in 0...10 { fixes.append(Self.at(Int64(k) * 30, ignition: false)) }
        for k in 11...30 { fixes.append(Self.at(Int64(k) * 30, ignition: true)) }
        #expect(Self.run(fixes) == ["ignition_on @330", "idle_start @330"])
    }

    @Test func aDeviceAlarmIsAnAlertWithItsKind() {
        let alerts = Self.run([
            Self.at(0, ignition: nil), Self.at(10, ignition: nil, alarm: "sos"),
            Self.at(20, ignition: nil),
            Self.at(30, ignition: nil, valid: false, alarm: "power_cut"),
        ])
        #expect(alerts == ["device_alarm @10 sos", "device_alarm @30 power_cut"])
    }

    /// A trip names the driver whose key the device reported, though the
    /// key came out with the ignition at its end.
    @Test func aTripNamesItsDriver() {
        func keyed(_ f: Fix, _ key: String?) -> Fix {
            var f = f
            var x = FixExtra()
            x.driver = key
            f.extra = x
            return f
        }
        var fixes: [Fix] = []
        for k in 0...4 {
            fixes.append(keyed(Self.at(Int64(k) * 30, ignition: true), "00000000CAFE0001"))
        }
        for k in 1...30 {
            fixes.append(Self.at(120 + Int64(k) * 10, east: Double(k) * 100, ignition: true))
        }
        for k in 1...10 {
            fixes.append(Self.at(420 + Int64(k) * 30, east: 3000, ignition: true))
        }
        fixes.append(keyed(Self.at(750, east: 3000, ignition: false), ""))
        var tracker = Tracker(fences: FenceIndex(fences: []), settings: TrackerSettings())
        var st: DeviceState?
        var trips: [Trip] = []
        var ends: [Alert] = []
        for f in fixes {
            let o = tracker.process(f, state: &st)
            trips += o.trips
            ends += o.alerts.filter { $0.type == .tripEnd }
        }
        #expect(trips.count == 1)
        #expect(trips.first?.driver == "00000000CAFE0001")
        #expect(ends.first?.details.contains(AlertDetail("driver", "00000000CAFE0001")) == true)
        #expect(st?.driver == nil)  // the key came out
    }

    @Test func alarmKindsAreMadeSafe() {
        #expect(FixExtra.alarmKind("SOS") == "sos")
        #expect(FixExtra.alarmKind("power cut!") == "power_cut_")
        #expect(FixExtra.alarmKind("<script>") == "_script_")
        #expect(FixExtra.alarmKind("") == nil)
        #expect(FixExtra.alarmKind(String(repeating: "a", count: 100))?.count == 32)
    }
}
