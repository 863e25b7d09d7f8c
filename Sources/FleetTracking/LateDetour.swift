import FleetGeo
import Foundation

/// The distance a stored trip gains from its `late` fixes: fixes that came
/// in older than the reorder window allows (`TrackerSettings.reorderWindowS`),
/// stored and flagged but never tracked, so the trip's tracked distance
/// went straight past them.
///
/// The trip's fixes are read in fix-time order. Each run of late fixes
/// between two accepted ones `a` and `b` (the fixes the tracked distance
/// measured `a` → `b` between) adds the way through them less the chord:
/// `|a l₁| + … + |lₙ b| − |a b|` (WGS 84 geodesics, as the odometer). A late
/// fix counts as the tracker would have taken it:
///
/// - it is valid and not vague (accuracy, else HDOP × `hdopAccuracyM`, at
///   most `odometerMaxAccuracyM`); a vague accepted fix is no neighbour
///   either, as it moved the vehicle nowhere;
/// - it is no jump: from the way's previous point and to `b` it implies at
///   most `jumpSpeedKmh` after forgiving `jumpAllowanceM`;
/// - it is no spike: the way does not go out to it and turn back (by more
///   than 135°) with both legs longer than `jumpAllowanceM` (a multipath
///   outlier 450 m off between two fixes 20 s apart passes the jump test,
///   and would add 600 m);
/// - the vehicle moved between `a` and `b` (more than `stillRadiusM` apart):
///   a late fix while it stood is scatter, which the odometer gate would
///   have added nothing for.
///
/// Pure: recomputed from scratch from the stored fixes, so a late fix
/// stored twice, or a trip recomputed again, gives the same figure.
public struct LateDetour: Sendable, Equatable {
    /// The tracker's settings: the jump filter, the odometer's accuracy
    /// limit and still radius.
    public var settings: TrackerSettings

    /// The rule the tracker's `settings` imply.
    public init(_ settings: TrackerSettings = TrackerSettings()) {
        self.settings = settings
    }

    /// One stored fix of a trip, as the store reads it.
    public struct Point: Sendable, Equatable {
        /// Fix time, Unix milliseconds.
        public var time: Int64
        /// Degrees, WGS 84.
        public var lat: Double
        public var lon: Double
        /// Reported accuracy (metres, 68 % radius) and HDOP, when reported.
        public var accuracyM: Double?
        public var hdop: Double?
        /// True for a fix stored `late`; false for one stored `accepted`.
        public var late: Bool

        public init(
            time: Int64, lat: Double, lon: Double, accuracyM: Double? = nil, hdop: Double? = nil,
            late: Bool
        ) {
            self.time = time
            self.lat = lat
            self.lon = lon
            self.accuracyM = accuracyM
            self.hdop = hdop
            self.late = late
        }
    }

    /// Metres the late fixes among `points` add to the trip (≥ 0; 0 when
    /// none counts). `points` are the trip's accepted and late fixes, valid
    /// ones only, in any order (sorted here by time).
    public func metres(_ points: [Point]) -> Double {
        guard points.contains(where: \.late) else { return 0 }
        let sorted = points.sorted { $0.time < $1.time }
        var total = 0.0
        var from: Point?
        var run: [Point] = []
        for p in sorted where !vague(p) {
            if p.late {
                if from != nil { run.append(p) }
                continue
            }
            if let a = from, !run.isEmpty { total += detour(from: a, through: run, to: p) }
            from = p
            run.removeAll(keepingCapacity: true)
        }
        return total
    }

    /// The way `a` → `run` → `b` less the chord `a` → `b`, through the late
    /// fixes that are no jump; 0 when the vehicle stood.
    func detour(from a: Point, through run: [Point], to b: Point) -> Double {
        let chord = distance(a, b)
        guard chord > settings.stillRadiusM else { return 0 }
        var way = 0.0
        var prev = a
        for (k, l) in run.enumerated() where plausible(prev, l) && plausible(l, b) {
            if spike(prev, l, k + 1 < run.count ? run[k + 1] : b) { continue }
            way += distance(prev, l)
            prev = l
        }
        guard prev != a else { return 0 }
        way += distance(prev, b)
        return max(0, way - chord)
    }

    /// Whether `p` → `q` implies at most `jumpSpeedKmh` after forgiving
    /// `jumpAllowanceM` (always, with the jump filter off).
    func plausible(_ p: Point, _ q: Point) -> Bool {
        guard settings.jumpSpeedKmh > 0 else { return true }
        let seconds = Double(q.time - p.time) / 1000
        return distance(p, q) - settings.jumpAllowanceM
            <= settings.jumpSpeedKmh / 3.6 * max(seconds, 0)
    }

    /// Whether the way `p` → `l` → `q` goes out to `l` and turns back by
    /// more than 135°, both legs longer than `jumpAllowanceM`.
    func spike(_ p: Point, _ l: Point, _ q: Point) -> Bool {
        let inLeg = distance(p, l)
        let outLeg = distance(l, q)
        guard inLeg > settings.jumpAllowanceM, outLeg > settings.jumpAllowanceM else {
            return false
        }
        // Directions in a local east/north frame at `l` (metres' ratios suffice).
        let k = cos(l.lat * .pi / 180)
        let u = ((l.lon - p.lon) * k, l.lat - p.lat)
        let v = ((q.lon - l.lon) * k, q.lat - l.lat)
        let dot = u.0 * v.0 + u.1 * v.1
        let norms = (u.0 * u.0 + u.1 * u.1).squareRoot() * (v.0 * v.0 + v.1 * v.1).squareRoot()
        return norms > 0 && dot / norms < -0.5.squareRoot()
    }

    /// Whether `p` reports an accuracy worse than `odometerMaxAccuracyM`.
    func vague(_ p: Point) -> Bool {
        settings.isVague(accuracyM: p.accuracyM, hdop: p.hdop)
    }

    func distance(_ p: Point, _ q: Point) -> Double {
        Geodesic.distance(lat1: p.lat, lon1: p.lon, lat2: q.lat, lon2: q.lon)
    }
}
