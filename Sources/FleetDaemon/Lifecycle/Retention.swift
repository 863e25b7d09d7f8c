import FleetModel
import FleetStorage
import Foundation
import Logging
import Synchronization

/// Retention (`storage.retain_days`): every 2 s, and again at once while a
/// full slice was deleted, deletes up to 5 000 expired positions (and up to
/// 5 000 outbox rows of webhook batches delivered that long ago, and of
/// mails sent or refused that long ago) in short
/// transactions, run by the commit stage between two commits (the
/// store keeps one writer, which never stalls on a big delete).
final class Retention: Sendable {
    private let retainMs: Int64
    private let stage: CommitStage
    private let logger: Logger
    /// Most rows per slice.
    static let slice = 5000

    init(retainDays: Double, stage: CommitStage, logger: Logger) {
        self.retainMs = Int64(retainDays * 86_400_000)
        self.stage = stage
        self.logger = logger
    }

    /// Deletes expired positions, a slice per turn of the writer, until a
    /// slice finds fewer than `slice` to delete. Returns when that is done.
    func runOnce() async {
        guard retainMs > 0 else { return }
        while true {
            let deleted: Int = await withCheckedContinuation { k in
                stage.schedule { [retainMs, logger] store in
                    let cutoff = WallClock.system.nowMs() - retainMs
                    do {
                        let n = try store.prune(before: cutoff, maxRows: Self.slice)
                        if n > 0 { logger.debug("retention: deleted \(n) positions") }
                        let w = try store.pruneWebhooks(before: cutoff, maxRows: Self.slice)
                        if w > 0 { logger.debug("retention: deleted \(w) delivered webhook rows") }
                        let m = try store.pruneMails(before: cutoff, maxRows: Self.slice)
                        if m > 0 { logger.debug("retention: deleted \(m) sent or refused mails") }
                        k.resume(returning: max(n, w, m))
                    } catch {
                        logger.error("\(error)")
                        k.resume(returning: 0)
                    }
                }
            }
            if deleted < Self.slice { return }
        }
    }
}
