import FleetTracking

/// `[tracking]`, `[overspeed]` and `[trip]`: the pure tracker's settings
/// (owned by FleetTracking's `TrackerSettings`), and the daemon's
/// wall-clock silence threshold.
public struct TrackingConfig: Sendable, Equatable {
    public var settings = TrackerSettings()
    /// `device_silent` after this many seconds without a fix (wall clock); 0 = off.
    public var silentAfterS = 3600.0
    /// Most `device_silent` alerts raised in one second (the oldest silences
    /// first, the rest in the seconds after): a fleet that falls silent at
    /// once (an outage, a flood of ids never heard again) cannot make one
    /// huge commit.
    public var silentBatchMax = 1000

    public init() {}

    init(
        tracking tr: inout ConfigSection, overspeed os: inout ConfigSection,
        trip tp: inout ConfigSection
    ) throws(ConfigError) {
        var t = settings
        t.marginM = try tr.double("margin_m", default: t.marginM, range: 0...100_000)
        t.dwellS = try tr.double("dwell_s", default: t.dwellS, range: 0...604_800)
        t.exitConfirmFixes = try tr.int(
            "exit_confirm_fixes", default: t.exitConfirmFixes, range: 1...100)
        t.enterConfirmFixes = try tr.int(
            "enter_confirm_fixes", default: t.enterConfirmFixes, range: 1...2)
        t.shallowVisitS = try tr.double(
            "shallow_visit_s", default: t.shallowVisitS, range: 0...86_400)
        t.jumpSpeedKmh = try tr.double(
            "jump_speed_kmh", default: t.jumpSpeedKmh, range: 0...100_000)
        t.jumpDecelerationMps2 = try tr.double(
            "jump_deceleration_mps2", default: t.jumpDecelerationMps2, range: 0...100)
        t.jumpConfirmFixes = try tr.int(
            "jump_confirm_fixes", default: t.jumpConfirmFixes, range: 1...100)
        t.jumpWindowFixes = try tr.int(
            "jump_window_fixes", default: t.jumpWindowFixes, range: 1...100)
        if t.jumpWindowFixes < t.jumpConfirmFixes {
            throw tr.error(
                "jump_window_fixes",
                "must be at least jump_confirm_fixes (\(t.jumpConfirmFixes)), found \(t.jumpWindowFixes)"
            )
        }
        t.accuracyGate = try tr.bool("accuracy_gate", default: t.accuracyGate)
        t.accuracyGateFactor = try tr.double(
            "accuracy_gate_factor", default: t.accuracyGateFactor, range: 0.5...10)
        t.hdopAccuracyM = try tr.double(
            "hdop_accuracy_m", default: t.hdopAccuracyM, range: 0.1...1000)
        t.backlogAfterS = try tr.double(
            "backlog_after_s", default: t.backlogAfterS, range: 0...86_400)
        t.odometerMaxAccuracyM = try tr.double(
            "odometer_max_accuracy_m", default: t.odometerMaxAccuracyM, range: 0...100_000)
        t.reorderWindowS = try tr.double(
            "reorder_window_s", default: t.reorderWindowS, range: 0...600)
        silentAfterS = try tr.double("silent_after_s", default: silentAfterS, range: 0...31_536_000)
        silentBatchMax = try tr.int(
            "silent_batch_max", default: silentBatchMax, range: 1...1_000_000)
        t.idleAfterS = try tr.double("idle_after_s", default: t.idleAfterS, range: 0...86_400)
        t.speedLimitKmh = try os.double("limit_kmh", default: t.speedLimitKmh, range: 0...1000)
        t.overspeedMinS = try os.double(
            "min_duration_s", default: t.overspeedMinS, range: 0...86_400)
        t.tripStartDistanceM = try tp.double(
            "start_distance_m", default: t.tripStartDistanceM, range: 1...1_000_000)
        t.tripStopDurationS = try tp.double(
            "stop_duration_s", default: t.tripStopDurationS, range: 1...604_800)
        t.tripGapS = try tp.double("gap_s", default: t.tripGapS, range: 1...31_536_000)
        t.ignitionEndsTrip = try tp.bool("ignition_ends_trip", default: t.ignitionEndsTrip)
        t.maxSpeedWindowS = try tp.double(
            "max_speed_window_s", default: t.maxSpeedWindowS, range: 0...3600)
        settings = t
    }
}
