import Foundation

/// `fleetsim score`: fleetd's alerts and trips against a fleet's truth.
/// Pure: the truth and what fleetd stored in, the scores out.
public struct FleetScore: Sendable, Equatable {
    /// An alert as fleetd stored it.
    public struct Alert: Sendable, Equatable {
        public var device: String
        public var type: String
        public var fence: String?
        public var timeMs: Int64
        public init(device: String, type: String, fence: String?, timeMs: Int64) {
            self.device = device
            self.type = type
            self.fence = fence
            self.timeMs = timeMs
        }
    }

    /// A trip as fleetd stored it.
    public struct Trip: Sendable, Equatable {
        public var device: String
        public var startMs: Int64
        public var endMs: Int64
        public var distanceM: Double
        public var maxSpeedKmh: Double
        public init(
            device: String, startMs: Int64, endMs: Int64, distanceM: Double, maxSpeedKmh: Double
        ) {
            self.device = device
            self.startMs = startMs
            self.endMs = endMs
            self.distanceM = distanceM
            self.maxSpeedKmh = maxSpeedKmh
        }
    }

    /// Matched, true and reported counts of one kind of event.
    public struct Tally: Sendable, Equatable, Codable {
        public var truth = 0
        public var reported = 0
        public var matched = 0
        public var recall: Double { truth == 0 ? 1 : Double(matched) / Double(truth) }
        public var precision: Double { reported == 0 ? 1 : Double(matched) / Double(reported) }
    }

    public var enter = Tally()
    public var exit = Tally()
    public var overspeed = Tally()
    /// Fence alerts matching no true event, per vehicle-day; those on a
    /// vehicle's own yards (it parks by their edges), per vehicle-day parked there.
    public var phantomsPerVehicleDay = 0.0
    public var yardPhantomsPerParkedDay = 0.0
    public var phantoms = 0
    public var yardPhantoms = 0
    /// Trips: true, found by fleetd, and matched one to one (the found trip
    /// overlapping the true one most, and at least half of it).
    public var trips = Tally()
    /// Per matched trip, |found − true| / true distance: median and 95th percentile.
    public var tripMileageErrorMedian = 0.0
    public var tripMileageErrorP95 = 0.0
    /// Per vehicle over the scenario, |Σ found − Σ true| / Σ true trip distance:
    /// mean and worst, and the signed mean (negative: short).
    public var vehicleMileageErrorMean = 0.0
    public var vehicleMileageErrorMax = 0.0
    public var vehicleMileageBias = 0.0
    /// Matched trips whose found maximum speed is below their average (must be 0).
    public var tripsAverageAboveMax = 0
    public var vehicleDays = 0.0
    public var toleranceS = 0.0
    /// Every true fence event no alert matched ("missed") and every fence
    /// alert matching no true event ("phantom"), one line each, by device
    /// and time: what `fleetsim score --misses` prints.
    public var misses: [String] = []

    /// Scores `alerts` and `trips` against `truth`; an event matches a true
    /// one of the same device, fence and kind within `toleranceS` plus two
    /// of the device's fix intervals.
    public init(truth: FleetTruth, alerts: [Alert], trips found: [Trip], toleranceS: Double = 60) {
        self.toleranceS = toleranceS
        let days = (Double(truth.scenario.endMs - truth.scenario.startMs) / 86_400_000)
        vehicleDays = days * Double(truth.vehicles.count)
        var interval: [String: Double] = [:]
        for v in truth.vehicles { interval[v.device] = Double(v.intervalS) }
        func tolMs(_ device: String) -> Int64 {
            Int64((toleranceS + 2 * (interval[device] ?? 30)) * 1000)
        }
        let known = Set(truth.vehicles.map(\.device))
        // Fence events.
        struct Key: Hashable {
            var device: String
            var fence: String
            var type: String
        }
        var want: [Key: [Int64]] = [:]
        for e in truth.fenceEvents {
            want[Key(device: e.device, fence: e.fence, type: e.type), default: []].append(e.timeMs)
        }
        var got: [Key: [Int64]] = [:]
        for a in alerts where known.contains(a.device) {
            guard let f = a.fence else { continue }
            let type =
                a.type == "geofence_enter" ? "enter" : a.type == "geofence_exit" ? "exit" : nil
            guard let type else { continue }
            got[Key(device: a.device, fence: f, type: type), default: []].append(a.timeMs)
        }
        var unmatched: [(device: String, time: Int64, what: String)] = []
        for key in Set(want.keys).union(got.keys) {
            let w = (want[key] ?? []).sorted()
            let g = (got[key] ?? []).sorted()
            let (m, wantHit, gotHit) = Self.match(w, g, tolerance: tolMs(key.device))
            for (k, t) in w.enumerated() where !wantHit[k] {
                unmatched.append((key.device, t, "missed \(key.type) \(key.fence)"))
            }
            for (k, t) in g.enumerated() where !gotHit[k] {
                unmatched.append((key.device, t, "phantom \(key.type) \(key.fence)"))
            }
            if key.type == "enter" {
                enter.truth += w.count
                enter.reported += g.count
                enter.matched += m
            } else {
                exit.truth += w.count
                exit.reported += g.count
                exit.matched += m
            }
            phantoms += g.count - m
            // A vehicle's own yards: the ones it parks by.
            if key.fence.hasPrefix("yard-\(key.device)-") { yardPhantoms += g.count - m }
        }
        phantomsPerVehicleDay = vehicleDays > 0 ? Double(phantoms) / vehicleDays : 0
        let parkedDays = truth.vehicles.reduce(0) { $0 + $1.parkedOnEdgeS } / 86_400
        yardPhantomsPerParkedDay = parkedDays > 0 ? Double(yardPhantoms) / parkedDays : 0
        // Overspeed: a found episode (start … end, or the next start) overlapping a true one.
        var starts: [String: [Int64]] = [:]
        for a in alerts where a.type == "overspeed_start" && known.contains(a.device) {
            starts[a.device, default: []].append(a.timeMs)
        }
        var trueOver: [String: [FleetTruth.TrueOverspeed]] = [:]
        for o in truth.overspeed { trueOver[o.device, default: []].append(o) }
        for device in Set(starts.keys).union(trueOver.keys) {
            let w = (trueOver[device] ?? []).sorted { $0.startMs < $1.startMs }
            let g = (starts[device] ?? []).sorted()
            overspeed.truth += w.count
            overspeed.reported += g.count
            var used = Set<Int>()
            for o in w {
                let tol = tolMs(device)
                if let k = g.indices.first(where: {
                    !used.contains($0) && g[$0] >= o.startMs - tol && g[$0] <= o.endMs + tol
                }) {
                    used.insert(k)
                    overspeed.matched += 1
                }
            }
        }
        // Trips.
        var foundBy: [String: [Trip]] = [:]
        for t in found where known.contains(t.device) { foundBy[t.device, default: []].append(t) }
        var trueBy: [String: [FleetTruth.TrueTrip]] = [:]
        for t in truth.trips { trueBy[t.device, default: []].append(t) }
        var tripErrors: [Double] = []
        var vehicleErrors: [Double] = []
        var bias = 0.0
        for v in truth.vehicles {
            let w = trueBy[v.device] ?? []
            let g = foundBy[v.device] ?? []
            trips.truth += w.count
            trips.reported += g.count
            var used = Set<Int>()
            for t in w {
                var best: (k: Int, overlap: Int64)?
                for (k, f) in g.enumerated() where !used.contains(k) {
                    let overlap = min(t.endMs, f.endMs) - max(t.startMs, f.startMs)
                    if overlap > (best?.overlap ?? 0) { best = (k, overlap) }
                }
                guard let b = best, b.overlap * 2 >= t.endMs - t.startMs else { continue }
                used.insert(b.k)
                trips.matched += 1
                let f = g[b.k]
                if t.distanceM > 0 {
                    tripErrors.append(abs(f.distanceM - t.distanceM) / t.distanceM)
                }
                let avg =
                    f.endMs > f.startMs
                    ? f.distanceM / (Double(f.endMs - f.startMs) / 1000) * 3.6 : 0
                if avg > f.maxSpeedKmh + 0.05 { tripsAverageAboveMax += 1 }
            }
            let trueSum = w.reduce(0) { $0 + $1.distanceM }
            let foundSum = g.reduce(0) { $0 + $1.distanceM }
            if trueSum > 0 {
                vehicleErrors.append(abs(foundSum - trueSum) / trueSum)
                bias += (foundSum - trueSum) / trueSum
            }
        }
        tripErrors.sort()
        if !tripErrors.isEmpty {
            tripMileageErrorMedian = tripErrors[tripErrors.count / 2]
            tripMileageErrorP95 = tripErrors[min(tripErrors.count - 1, tripErrors.count * 95 / 100)]
        }
        if !vehicleErrors.isEmpty {
            vehicleMileageErrorMean = vehicleErrors.reduce(0, +) / Double(vehicleErrors.count)
            vehicleMileageErrorMax = vehicleErrors.max() ?? 0
            vehicleMileageBias = bias / Double(vehicleErrors.count)
        }
        misses = unmatched.sorted { ($0.device, $0.time, $0.what) < ($1.device, $1.time, $1.what) }
            .map { "\($0.device) \($0.time) \($0.what)" }
    }

    /// Greedy one-to-one matching of sorted times within `tolerance`: the
    /// number matched, and which of `want` and of `got` were.
    static func match(_ want: [Int64], _ got: [Int64], tolerance: Int64) -> (Int, [Bool], [Bool]) {
        var used = [Bool](repeating: false, count: got.count)
        var hit = [Bool](repeating: false, count: want.count)
        var n = 0
        for (i, w) in want.enumerated() {
            var best: Int?
            for (k, g) in got.enumerated() where !used[k] && abs(g - w) <= tolerance {
                if best == nil || abs(g - w) < abs(got[best!] - w) { best = k }
            }
            if let b = best {
                used[b] = true
                hit[i] = true
                n += 1
            }
        }
        return (n, hit, used)
    }

    /// The scores as a JSON contract (`fleetsim score --json`): fields are
    /// added, never renamed. Shares are fractions (0.01 = 1 %).
    public struct Summary: Codable, Sendable, Equatable {
        public var enterRecall: Double
        public var enterPrecision: Double
        public var exitRecall: Double
        public var exitPrecision: Double
        public var enter: Tally
        public var exit: Tally
        public var phantoms: Int
        public var phantomsPerVehicleDay: Double
        public var yardPhantoms: Int
        public var yardPhantomsPerParkedDay: Double
        public var trips: Tally
        public var tripsFoundRatio: Double
        public var tripMileageErrorMedian: Double
        public var tripMileageErrorP95: Double
        public var vehicleMileageErrorMean: Double
        public var vehicleMileageErrorMax: Double
        public var vehicleMileageBias: Double
        public var tripsAverageAboveMax: Int
        public var overspeed: Tally
        public var overspeedRecall: Double
        public var overspeedPrecision: Double
        public var vehicleDays: Double

        enum CodingKeys: String, CodingKey {
            case enter, exit, phantoms, trips, overspeed
            case enterRecall = "enter_recall"
            case enterPrecision = "enter_precision"
            case exitRecall = "exit_recall"
            case exitPrecision = "exit_precision"
            case phantomsPerVehicleDay = "phantoms_per_vehicle_day"
            case yardPhantoms = "yard_phantoms"
            case yardPhantomsPerParkedDay = "yard_phantoms_per_parked_day"
            case tripsFoundRatio = "trips_found_ratio"
            case tripMileageErrorMedian = "trip_mileage_error_median"
            case tripMileageErrorP95 = "trip_mileage_error_p95"
            case vehicleMileageErrorMean = "vehicle_mileage_error_mean"
            case vehicleMileageErrorMax = "vehicle_mileage_error_max"
            case vehicleMileageBias = "vehicle_mileage_bias"
            case tripsAverageAboveMax = "trips_average_above_max"
            case overspeedRecall = "overspeed_recall"
            case overspeedPrecision = "overspeed_precision"
            case vehicleDays = "vehicle_days"
        }
    }

    public var summary: Summary {
        Summary(
            enterRecall: enter.recall, enterPrecision: enter.precision, exitRecall: exit.recall,
            exitPrecision: exit.precision, enter: enter, exit: exit, phantoms: phantoms,
            phantomsPerVehicleDay: phantomsPerVehicleDay, yardPhantoms: yardPhantoms,
            yardPhantomsPerParkedDay: yardPhantomsPerParkedDay, trips: trips,
            tripsFoundRatio: trips.truth == 0 ? 1 : Double(trips.reported) / Double(trips.truth),
            tripMileageErrorMedian: tripMileageErrorMedian,
            tripMileageErrorP95: tripMileageErrorP95,
            vehicleMileageErrorMean: vehicleMileageErrorMean,
            vehicleMileageErrorMax: vehicleMileageErrorMax, vehicleMileageBias: vehicleMileageBias,
            tripsAverageAboveMax: tripsAverageAboveMax, overspeed: overspeed,
            overspeedRecall: overspeed.recall, overspeedPrecision: overspeed.precision,
            vehicleDays: vehicleDays)
    }

    /// The scores as text, one figure a line.
    public var text: String {
        func pct(_ v: Double) -> String { String(format: "%.2f %%", v * 100) }
        func tally(_ name: String, _ t: Tally) -> String {
            "\(name): recall \(pct(t.recall)) (\(t.matched) of \(t.truth) true), precision \(pct(t.precision)) (\(t.matched) of \(t.reported) reported)"
        }
        return [
            tally("enter", enter),
            tally("exit", exit),
            String(
                format:
                    "phantom fence alerts: %d (%.3f per vehicle-day); on the yards vehicles park by: %d (%.3f per vehicle-day parked there)",
                phantoms, phantomsPerVehicleDay, yardPhantoms, yardPhantomsPerParkedDay),
            "trips: \(trips.reported) found for \(trips.truth) true (\(pct(trips.truth == 0 ? 0 : Double(trips.reported - trips.truth) / Double(trips.truth))) off), \(trips.matched) matched",
            "trip mileage error: median \(pct(tripMileageErrorMedian)), p95 \(pct(tripMileageErrorP95))",
            "vehicle mileage error: mean \(pct(vehicleMileageErrorMean)), worst \(pct(vehicleMileageErrorMax)), bias \(pct(vehicleMileageBias))",
            "trips with average above max: \(tripsAverageAboveMax)",
            tally("overspeed", overspeed),
            String(
                format: "vehicle-days: %.2f; tolerance %.0f s + 2 fix intervals", vehicleDays,
                toleranceS),
        ].joined(separator: "\n")
    }
}
