import FleetGeo
import FleetSimCore
import Foundation

/// `fleetbench accuracy --filter-study`: how much of a simulated fleet's
/// GNSS error a per-device position filter could take away, measured
/// against the world's truth before any tracking rule is built on one.
///
/// The filter is given every advantage the world allows. Per axis (east,
/// north, metres) a Kalman filter over the true position and the GNSS
/// error, the error modelled exactly as the world draws it (first-order
/// Gauss–Markov, `noiseM` per axis, correlated over `noiseCorrelationS`);
/// the position moved between fixes by the speeds and courses the device
/// reports (the chord of a constant-turn arc between the two headings),
/// with an error for the speed's noise as drawn (1 km/h), for a speed that
/// changed between the fixes, for the turn and for the unknown profile
/// (`slack`), all times `scale` (below 1: trusting the way more than
/// modelled); a fix more than five sigmas off the prediction, or beyond
/// 60 m of a sure one, left out, and three left out in a row start the
/// filter again. It is causal (each estimate uses the fixes up to it, as
/// a live alert must). Scored on every fix against where the vehicle
/// really was, the world's outliers (100–600 m off) scored by neither;
/// "moving" is a fix reporting a speed. See R. G. Brown and P. Y. C.
/// Hwang, *Introduction to Random Signals and Applied Kalman Filtering*,
/// 4th ed., ch. 6 (augmenting the state with a Gauss–Markov error).
struct FilterStudy {
    /// Multiplies the way's modelled error (1: as modelled).
    let scale: Double
    /// A share of the way's length added to its error.
    let slack = 0.15

    /// Per fix, squared error per axis of the raw fix and of the estimate.
    private(set) var moving: [(raw: Double, filtered: Double)] = []
    /// The same for fixes a second or less after the one before.
    private(set) var movingAt1Hz: [(raw: Double, filtered: Double)] = []
    private(set) var parked: [(raw: Double, filtered: Double)] = []
    /// Fixes left out, and restarts after three in a row.
    private(set) var rejected = 0
    private(set) var restarts = 0

    init(scale: Double) { self.scale = scale }

    /// One axis: state (x: position, b: GNSS error) and its covariance.
    struct Axis {
        var x = 0.0
        var b = 0.0
        var pxx = 0.0
        var pxb = 0.0
        var pbb = 0.0

        /// At a fix `z`, nothing known of the error but its variance `v`.
        init(z: Double, v: Double) {
            x = z
            pxx = v
            pxb = -v
            pbb = v
        }

        /// Moves the position by `u` (variance `qu`) and decays the error
        /// by `rho` (driving noise `qb`).
        mutating func predict(u: Double, qu: Double, rho: Double, qb: Double) {
            x += u
            b *= rho
            pxx += qu
            pxb *= rho
            pbb = rho * rho * pbb + qb
        }

        /// The innovation's variance for a fix `z = x + b` (plus white `r`).
        func innovationVariance(r: Double) -> Double { pxx + 2 * pxb + pbb + r }

        mutating func update(z: Double, r: Double) {
            let s = innovationVariance(r: r)
            let kx = (pxx + pxb) / s
            let kb = (pxb + pbb) / s
            let y = z - x - b
            x += kx * y
            b += kb * y
            let nxx = pxx - kx * (pxx + pxb)
            let nxb = pxb - kx * (pxb + pbb)
            let nbb = pbb - kb * (pxb + pbb)
            pxx = nxx
            pxb = nxb
            pbb = nbb
        }
    }

    mutating func run(_ world: FleetWorld) {
        let sigma = world.scenario.noiseM
        let tau = world.scenario.noiseCorrelationS
        let speedSigma = 1 / 3.6  // m/s, as the world draws it
        let r = 1.0  // m², white error beside the correlated one
        for device in world.devices {
            let fixes = device.packets.flatMap(\.fixes).sorted { $0.time < $1.time }
            guard let first = fixes.first else { continue }
            let frame = LocalProjection(lat0: first.lat, lon0: first.lon)
            func local(_ lat: Double, _ lon: Double) -> (Double, Double) {
                let p = frame.project(lat: lat, lon: lon)
                return (p.x, p.y)
            }
            var east = Axis(z: 0, v: sigma * sigma)
            var north = east
            var last: SimFix?
            var streak = 0
            for f in fixes {
                let z = local(f.lat, f.lon)
                let truth = local(f.trueLat, f.trueLon)
                guard let prev = last else {
                    east = Axis(z: z.0, v: sigma * sigma)
                    north = Axis(z: z.1, v: sigma * sigma)
                    last = f
                    score(f, dt: .infinity, estimate: (east.x, north.x), raw: z, truth: truth)
                    continue
                }
                guard f.time > prev.time else { continue }
                let dt = Double(f.time - prev.time) / 1000
                let (u, stepSigma) = way(from: prev, to: f, dt: dt, speedSigma: speedSigma)
                let qu = stepSigma * stepSigma
                let rho = tau > 0 ? exp(-dt / tau) : 0
                let qb = sigma * sigma * (1 - rho * rho)
                east.predict(u: u.0, qu: qu, rho: rho, qb: qb)
                north.predict(u: u.1, qu: qu, rho: rho, qb: qb)
                let ye = z.0 - east.x - east.b
                let yn = z.1 - north.x - north.b
                let y2 = ye * ye + yn * yn
                if y2 > 25 * (east.innovationVariance(r: r) + north.innovationVariance(r: r))
                    || (y2 > 60 * 60 && east.pxx < 30 * 30)
                {
                    rejected += 1
                    streak += 1
                    if streak >= 3 {
                        east = Axis(z: z.0, v: sigma * sigma)
                        north = Axis(z: z.1, v: sigma * sigma)
                        streak = 0
                        restarts += 1
                    }
                } else {
                    streak = 0
                    east.update(z: z.0, r: r)
                    north.update(z: z.1, r: r)
                }
                last = f
                score(f, dt: dt, estimate: (east.x, north.x), raw: z, truth: truth)
            }
        }
    }

    /// The way from `a` to `b` (east, north, metres) as their speeds and
    /// headings give it, and its error (metres, per axis).
    private func way(from a: SimFix, to b: SimFix, dt: Double, speedSigma: Double) -> (
        (Double, Double), Double
    ) {
        guard a.speedKmh > 0 || b.speedKmh > 0 else {
            return ((0, 0), (0.05 * dt).squareRoot())  // parked
        }
        // A heading unknown at one end (standing), or a long gap: no way known.
        if a.speedKmh == 0 || b.speedKmh == 0 || dt > 30 {
            return ((0, 0), scale * max(a.speedKmh, b.speedKmh) / 3.6 * dt)
        }
        let v = (a.speedKmh + b.speedKmh) / 2 / 3.6
        var turn = (b.courseDeg - a.courseDeg) * .pi / 180
        while turn > .pi { turn -= 2 * .pi }
        while turn < -.pi { turn += 2 * .pi }
        let heading = a.courseDeg * .pi / 180 + turn / 2
        let half = turn / 2
        let chord = v * dt * (abs(half) < 1e-9 ? 1 : sin(half) / half)
        // Accelerating or braking, the mean of the two ends' speeds is off
        // by up to half the change.
        let change = abs(b.speedKmh - a.speedKmh) / 3.6 * dt / 2
        let noise = speedSigma * dt / 2.0.squareRoot()
        let profile = slack * chord
        let bend = 0.3 * turn * chord
        let sigma = (noise * noise + change * change + profile * profile + bend * bend).squareRoot()
        return ((chord * sin(heading), chord * cos(heading)), scale * sigma)
    }

    private mutating func score(
        _ f: SimFix, dt: Double, estimate: (Double, Double), raw: (Double, Double),
        truth: (Double, Double)
    ) {
        let re = raw.0 - truth.0
        let rn = raw.1 - truth.1
        guard re * re + rn * rn < 50 * 50 else { return }  // the world's outliers
        let fe = estimate.0 - truth.0
        let fn = estimate.1 - truth.1
        let e = (raw: (re * re + rn * rn) / 2, filtered: (fe * fe + fn * fn) / 2)
        if f.speedKmh > 0 {
            moving.append(e)
            if dt <= 1 { movingAt1Hz.append(e) }
        } else {
            parked.append(e)
        }
    }

    /// Quantiles of the per-axis error, raw / filtered, metres.
    static func quantiles(_ errors: [(raw: Double, filtered: Double)]) -> String {
        let raw = errors.map { $0.raw.squareRoot() }.sorted()
        let filtered = errors.map { $0.filtered.squareRoot() }.sorted()
        guard !raw.isEmpty else { return "none" }
        return [0.5, 0.9, 0.99, 0.999].map { q in
            let k = min(raw.count - 1, Int(q * Double(raw.count)))
            return String(format: "p%g %.2f / %.2f", q * 100, raw[k], filtered[k])
        }.joined(separator: ", ")
    }

    var text: String {
        """
        filter study, way error x \(scale) (per-axis error against the truth, raw / filtered, m):
          moving (\(moving.count) fixes): \(Self.quantiles(moving))
          moving, 1 s apart (\(movingAt1Hz.count)): \(Self.quantiles(movingAt1Hz))
          parked (\(parked.count)): \(Self.quantiles(parked))
          fixes left out: \(rejected); restarts: \(restarts)
        """
    }
}
