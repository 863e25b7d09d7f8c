import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// A fix that reports itself vague (accuracy worse than
/// `odometerMaxAccuracyM`) moves the vehicle nowhere: no distance, no crossing.
@Suite struct VagueFixTests {
    /// A drive north along 11° E, 100 m every 10 s, fix 5 a reported
    /// multipath outlier 400 m east (accuracy 500 m).
    func odometer(maxAccuracy: Double) -> Double {
        var settings = TrackerSettings()
        settings.odometerMaxAccuracyM = maxAccuracy
        var tracker = Tracker(fences: FenceIndex(fences: []), settings: settings)
        var state: DeviceState?
        for k in 0..<12 {
            let east = k == 5 ? 400.0 : 0
            let f = Fix(
                device: "v", time: Int64(k) * 10_000, lat: 48 + Double(k) * 100 * mLat,
                lon: 11 + east * mLon, accuracyM: k == 5 ? 500 : 5)
            state = tracker.process(f, state: state).state
        }
        return state?.odometerM ?? -1
    }

    @Test func aReportedOutlierAddsNoDistance() {
        // 1 100 m driven: the outlier's detour (about 2 × 412 m − 200 m) is not.
        #expect(abs(odometer(maxAccuracy: 50) - 1_100) < 2)
        #expect(odometer(maxAccuracy: 0) > 1_600)
    }
}
