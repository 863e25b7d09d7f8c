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
final class TripBoard: CommitSink {
    private let trips: Mutex<[String: OpenTrip]>

    /// `tracker` looks up the fences at each seeded trip's start.
    init(states: [String: DeviceState], tracker: Tracker) {
        var open: [String: OpenTrip] = [:]
        for (device, st) in states {
            if let t = tracker.openTrip(device: device, state: st, fences: true) {
                open[device] = t
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
                // Updates after the first carry no fences: keep the ones found then.
                if trip.startFence == nil, let old = board[device], old.start == trip.start {
                    trip.startFence = old.startFence
                    trip.startFenceId = old.startFenceId
                }
                board[device] = trip
            }
        }
    }

    /// The trips under way that `filter` selects (device; overlapping
    /// `fromMs`..<`toMs`), by start time then device, as records with
    /// `open` set (no id, no end fence, no vehicle name).
    func records(_ filter: TripFilter) -> [TripRecord] {
        let open = trips.withLock { board in
            if let d = filter.device { return board[d].map { [$0] } ?? [] }
            return Array(board.values)
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
