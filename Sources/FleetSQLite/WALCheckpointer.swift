import FleetModel
import FleetStorage
import Foundation
import GRDB

/// Copies the write-ahead log back into the database file on a thread of
/// its own, so that the writer never waits for a checkpoint's `fsync`.
///
/// SQLite's default is that the committing connection runs the checkpoint
/// once the WAL holds 1 000 pages (https://www.sqlite.org/wal.html#ckpt).
/// With `synchronous=NORMAL` a commit itself does not sync, but each of
/// those checkpoints syncs the database file, on the writer's thread, many
/// times a second under load. Here the writer's automatic checkpoint is
/// raised to `SQLiteStore.writerCheckpointPages` (a backstop that also lets
/// the WAL restart from its beginning), and this thread runs a PASSIVE
/// checkpoint every `interval` on a connection of its own: it never blocks
/// the writer or readers, and what it has copied the writer's backstop
/// checkpoint need not copy again. The default interval, 20 ms, keeps that
/// remainder small (a checkpoint with nothing to copy costs next to
/// nothing): at 200 ms the backstop found seconds of frames to copy. Durability is unchanged: which commits
/// survive what is decided by `synchronous` at commit time.
public final class WALCheckpointer: @unchecked Sendable {
    private let queue: DatabaseQueue
    private let interval: TimeInterval
    private let stopped = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Opens a second connection to the database at `path` (already
    /// created by the writer). Throws `StoreError`.
    public init(path: String, interval: TimeInterval = 0.02) throws(StoreError) {
        self.interval = interval
        do {
            var config = Configuration()
            config.busyMode = .timeout(1)
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch {
            throw StoreError(
                path: path, action: "cannot open the checkpoint connection", underlying: error)
        }
    }

    /// Starts the thread. `changed` is called on it when checkpoints start
    /// failing (with the error) and when they succeed again (with nil); a
    /// failed checkpoint is tried again at the next interval.
    public func start(changed: @escaping @Sendable ((any Error)?) -> Void) {
        let thread = Thread { [self] in
            ThreadName.set("fleetd-wal")
            var failing = false
            while stopped.wait(timeout: .now() + interval) == .timedOut {
                do {
                    try queue.writeWithoutTransaction { db in
                        try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
                    }
                    if failing { changed(nil) }
                    failing = false
                } catch {
                    if !failing { changed(error) }
                    failing = true
                }
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops the thread and waits for it.
    public func stop() {
        stopped.signal()
        done.wait()
    }
}
