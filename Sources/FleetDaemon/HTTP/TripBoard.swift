import FleetGeo
import FleetStorage
import FleetTracking
import Synchronization

/// The trips under way, as of the last commit (what `GET /api/v1/trips`
/// lists beside the finished ones, with `"open": true`).
///
/// A post-commit sink: each batch carries, per fix that moved a trip on,
/// the trip as it stands (or its end), so the board never shows a trip
/// whose fixes are not stored. Seeded at start-up from the device states
/// (after the replay of a crash), so a restart keeps the trips under way.
/// Every update is a dictionary write under a lock taken once per commit.
///
/// The fences at a trip's start are listed when the board is read, with
/// the fences in force then (as a finished trip's are listed when it
/// ends), not held for every trip: a fleet of 100 000 vehicles leaving
/// depots among 20 fences each held 13 MB of such lists, and the engine
/// looked them up as each trip started.
///
/// Each trip is kept in a `Slot` of its own, not inline in the dictionary:
/// a fleet leaving its depots starts every vehicle's trip within seconds,
/// and a dictionary of 100 000 inline trips (136 bytes each, in up to twice
/// as many buckets) held 40 MB and 60 MB while it doubled (+86 MB at the
/// peak of the shared harness's ladder, measured); boxed, a bucket is 24
/// bytes and a trip's update writes its slot in place.
final class TripBoard: CommitSink {
    private let trips: Mutex<[String: Slot]>
    /// The fences the starts are listed against (replaced on SIGHUP).
    private let fences: Mutex<FenceIndex>

    /// One device's trip under way. Unchecked Sendable: a slot is only
    /// read or written under the board's lock.
    private final class Slot: @unchecked Sendable {
        var trip: OpenTrip
        init(_ trip: OpenTrip) { self.trip = trip }
    }

    init(states: [String: DeviceState], tracker: Tracker) {
        var open: [String: Slot] = [:]
        for (device, st) in states {
            if let t = tracker.openTrip(device: device, state: st, fences: false) {
                open[device] = Slot(t)
            }
        }
        trips = Mutex(open)
        fences = Mutex(tracker.fences)
    }

    /// Lists the starts against `index` from now on (fences reloaded).
    func replaceFences(_ index: FenceIndex) { fences.withLock { $0 = index } }

    func committed(_ commit: Commit) {
        let news = commit.batch.tripsUnderWay
        guard !news.isEmpty else { return }
        trips.withLock { board in
            for (device, trip) in news {
                guard let trip else {
                    board.removeValue(forKey: device)
                    continue
                }
                if let slot = board[device] {
                    slot.trip = trip
                } else {
                    board[device] = Slot(trip)
                }
            }
        }
    }

    /// The trips under way that `filter` selects (device; overlapping
    /// `fromMs`..<`toMs`), by start time then device, as records with
    /// `open` set (no id, no end fence, no vehicle name).
    func records(_ filter: TripFilter) -> [TripRecord] {
        let index = fences.withLock { $0 }
        let open = trips.withLock { board in
            if let d = filter.device { return board[d].map { [$0.trip] } ?? [] }
            return board.values.map(\.trip)
        }
        return
            open
            .filter { t in
                (filter.fromMs.map { t.last.time >= $0 } ?? true)
                    && (filter.toMs.map { t.start.time < $0 } ?? true)
            }
            .sorted { ($0.start.time, $0.device) < ($1.start.time, $1.device) }
            .map { t in
                var t = t
                t.listStartFences(in: index)
                return TripRecord(open: t)
            }
    }
}
