/// Defaults the tracker applies where a fence does not say (config
/// `[tracking]`, `[overspeed]`, `[trip]`).
public struct TrackerSettings: Sendable, Equatable {
    /// Exit hysteresis: a vehicle inside exits once more than this many metres
    /// outside the boundary (a fence's `margin_m` overrides; 0 turns it off).
    public var marginM: Double = 20
    /// Seconds a state must hold before its alert (a fence's `dwell_s` overrides).
    public var dwellS: Double = 0
    /// Consecutive fixes beyond the margin that confirm an exit (1 = the first
    /// one does). Against GNSS scatter around a fence line: with 10 m σ and the
    /// 20 m margin one fix in 40 lands beyond, three in a row one in 80 000.
    public var exitConfirmFixes: Int = 3
    /// Consecutive fixes inside that confirm an entry, 1 or 2 (1 = the first
    /// one does). With 2, one fix scattered into a fence (a multipath
    /// outlier, a vehicle parked by its edge) enters nothing; the entry is
    /// dated from the first of the two. Fences with a dwell are confirmed by
    /// their dwell.
    public var enterConfirmFixes: Int = 1
    /// Entry hysteresis, the exit's mirrored: an entry whose fixes stay
    /// within the fence's margin of its boundary is raised only once the
    /// device has been inside this many seconds; a fix deeper than the
    /// margin raises it at once. Either way it is dated from when the device
    /// entered. A vehicle brushing a fence (a corner cut, a road along its
    /// edge) by less than the margin for less than this raises nothing, as a
    /// vehicle inside that strays less than the margin out does not exit.
    /// 0 turns it off (every entry is raised on its first fix).
    public var shallowVisitS: Double = 60

    /// Jump filter: a fix implying more than this speed (km/h) from the last
    /// accepted one is held as a suspect (0 turns the filter off). The implied
    /// speed discounts `jumpAllowanceM` of position error.
    public var jumpSpeedKmh: Double = 300
    /// Metres of position error forgiven when judging a jump.
    public var jumpAllowanceM: Double = 100
    /// Jump filter, second test: a fix farther from the last accepted
    /// one than the speed it reports can reach (its speed over the time
    /// between them, plus slowing down to it at this rate, m/s², plus six
    /// times its accuracy) is held as a suspect too. 0 turns the test off
    /// (as does a `jumpSpeedKmh` of 0, the whole filter).
    public var jumpDecelerationMps2: Double = 5
    /// k: suspects (counting the newest) that must agree with one another on a
    /// new place before the vehicle is moved there.
    public var jumpConfirmFixes: Int = 3
    /// n: the agreeing suspects must lie among the device's last n valid fixes.
    public var jumpWindowFixes: Int = 5

    /// Speed limit (km/h) where no fence the vehicle is in sets a lower
    /// `speed_limit_kmh`; 0 = no limit.
    public var speedLimitKmh: Double = 0
    /// Seconds a speed must stay over (and back under) the limit before
    /// `overspeed_start` (and `overspeed_end`) is raised.
    public var overspeedMinS: Double = 30

    /// A trip starts once the vehicle is more than this far (m) from where it stopped.
    public var tripStartDistanceM: Double = 200
    /// A trip ends once the vehicle has stayed within `tripStartDistanceM` this long (s).
    public var tripStopDurationS: Double = 180
    /// A gap in fixes longer than this (s) ends the trip at the last fix before it.
    public var tripGapS: Double = 3600
    /// When a device reports ignition off, the trip ends there (and none starts).
    public var ignitionEndsTrip: Bool = false
    /// A vehicle standing with its ignition on this long (s) is idling:
    /// `idle_start` and later `idle_end` (0: no idling alerts).
    public var idleAfterS: Double = 300

    /// A trip's maximum speed is the highest average over consecutive spans
    /// of at least this many seconds (`SpeedWindow`); 0: every fix's speed.
    public var maxSpeedWindowS: Double = 10

    /// A fix reporting an accuracy (or HDOP × `hdopAccuracyM`) worse than
    /// this many metres moves the vehicle nowhere: no distance, no trip
    /// start, no crossing from it (0: every fix moves it).
    public var odometerMaxAccuracyM: Double = 50
    /// Odometer gate: a parked vehicle's fixes scatter within this radius (m)
    /// of their mean and add no distance.
    public var stillRadiusM: Double = 50
    /// Odometer gate: a moving vehicle that stays within `stillRadiusM` of one
    /// fix this long (s) is parked again, and what its scatter added since that
    /// fix is taken back.
    public var stillTimeS: Double = 30
    /// Accuracy gate: a fix whose reported uncertainty (its accuracy radius,
    /// metres) reaches a fence's boundary cannot change its membership on
    /// its own: it neither enters the fence nor counts towards leaving it,
    /// unless the way to it from outside went deeper than the fence's
    /// margin (a corner cut between sparse fixes: the vehicle was inside).
    /// Fixes that report no uncertainty are not gated.
    public var accuracyGate: Bool = true
    /// The gate's radius is the reported uncertainty times this. Phones and
    /// trackers report the radius of 68 % confidence (Android's
    /// `Location.getAccuracy`; HDOP × a range error likewise); for a circular
    /// Gaussian error twice that radius holds 99 %: a vehicle parked 3 m
    /// outside a fence does not enter it once an hour.
    public var accuracyGateFactor: Double = 2
    /// A fix that reports HDOP but no accuracy is taken as accurate to
    /// HDOP × this many metres (a typical user-equivalent range error).
    public var hdopAccuracyM: Double = 5
    /// A fix received more than this many seconds after its fix time comes
    /// from a device's backlog (buffered while out of coverage): the engine
    /// flags its alerts `backlog` (0: never). Read by the engine, which
    /// knows receive times; the tracker itself sees only fix times.
    public var backlogAfterS: Double = 60
    /// A fix at most this many seconds older than the newest tracked for
    /// its device (datagrams the network swapped) is tracked in its place
    /// (`Rewind`), as is one filling a gap longer than `backlogAfterS` that
    /// a newer fix ended (a backlog sent newest first); older ones are
    /// stored flagged `late`. 0: every fix older than the newest is late.
    public var reorderWindowS: Double = 5

    public init(
        marginM: Double = 20, dwellS: Double = 0, exitConfirmFixes: Int = 3,
        jumpSpeedKmh: Double = 300
    ) {
        self.marginM = marginM
        self.dwellS = dwellS
        self.exitConfirmFixes = exitConfirmFixes
        self.jumpSpeedKmh = jumpSpeedKmh
    }
}

extension TrackerSettings {
    /// The accuracy a fix reports, metres (68 % radius): its accuracy,
    /// else its HDOP × `hdopAccuracyM`; nil when it reports neither.
    public func reportedAccuracy(accuracyM: Double?, hdop: Double?) -> Double? {
        if let a = accuracyM, a > 0, a.isFinite { return a }
        if let h = hdop, h > 0, h.isFinite { return h * hdopAccuracyM }
        return nil
    }

    /// Whether a fix reporting these says it is vague: an accuracy worse
    /// than `odometerMaxAccuracyM` (never when that is 0). A vague fix
    /// moves the vehicle nowhere.
    public func isVague(accuracyM: Double?, hdop: Double?) -> Bool {
        odometerMaxAccuracyM > 0
            && (reportedAccuracy(accuracyM: accuracyM, hdop: hdop) ?? 0) > odometerMaxAccuracyM
    }
}
