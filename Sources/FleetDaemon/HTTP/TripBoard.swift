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
/// Only the start's fences are looked up, once per trip; every other update
/// is a dictionary write under a lock taken once per commit.
///
/// Each trip is kept in a `Slot` of its own, not inline in the dictionary:
/// a fleet leaving its depots starts every vehicle's trip within seconds,
/// and a dictionary of 100 000 inline trips (136 bytes each, in up to twice
/// as many buckets) held 40 MB and 60 MB while it doubled (+86 MB at the
/// peak of the shared harness's ladder, measured); boxed, a bucket is 24
/// bytes and a trip's update writes its slot in place.
final class TripBoard: CommitSink {
    private let trips: Mutex<[String: Slot]>

    /// One device's trip under way. Unchecked Sendable: a slot is only
    /// read or written under the board's lock.
    private final class Slot: @unchecked Sendable {
        var trip: OpenTrip
        init(_ trip: OpenTrip) { self.trip = trip }
    }

    /// `tracker` looks up the fences at each seeded trip's start.
    init(states: [String: DeviceState], tracker: Tracker) {
        var open: [String: Slot] = [:]
        for (device, st) in states {
            if let t = tracker.openTrip(device: device, state: st, fences: true) {
                open[device] = Slot(t)
            }
        }
        trips = Mutex(open)
    }

    func committed(_ commit: Commit) {
        let news = commit.batch.tripsUnderWay
        guard !news.isEmpty else { return }
        trips.withLock { board in
            for (device, trip) in news {
                guard var trip else {
                    board.removeValue(forKey: device)
                    continue
                }
                guard let slot = board[device] else {
                    board[device] = Slot(trip)
                    continue
                }
                // Updates after the first carry no fences: keep the ones found then.
                if trip.startFence == nil, slot.trip.start == trip.start {
                    trip.startFence = slot.trip.startFence
                    trip.startFenceId = slot.trip.startFenceId
                }
                slot.trip = trip
            }
        }
    }

    /// The trips under way that `filter` selects (device; overlapping
    /// `fromMs`..<`toMs`), by start time then device, as records with
    /// `open` set (no id, no end fence, no vehicle name).
    func records(_ filter: TripFilter) -> [TripRecord] {
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
            .map { TripRecord(open: $0) }
    }
}
