import FleetStorage
import Foundation
import GRDB

/// `fleetctl backup`: a consistent copy of a live database, made with
/// SQLite's online backup API (https://sqlite.org/backup.html) in one step
/// from one read transaction (a WAL snapshot: the writer is never blocked),
/// written to a temporary file beside the destination, checked with
/// `PRAGMA integrity_check`, then linked into place.
///
/// The copy holds password hashes, webhook secrets and every position: the
/// temporary file is created 0600 (`O_CREAT | O_EXCL | O_NOFOLLOW`: not
/// through a symlink, not over a file), and put in place with `link(2)`,
/// which fails rather than replace a file that appeared meanwhile.
public enum Backup {
    /// What a finished copy holds.
    public struct Report: Sendable {
        public let bytes: Int64
        public let positions: Int
        public let alerts: Int
        public let devices: Int
        public let seconds: Double
    }

    /// Copies `source` to `destination` (which must not exist). Throws
    /// `StoreError` naming the file and what failed; nothing is left at
    /// `destination` then.
    public static func run(from source: String, to destination: String) throws(StoreError)
        -> Report
    {
        let started = Date()
        guard FileManager.default.fileExists(atPath: source) else {
            throw StoreError(
                path: source, action: "cannot back up",
                underlying: ReaderProblem("no such file (start fleetd, or pass --db PATH)"))
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError(
                path: destination, action: "will not overwrite",
                underlying: ReaderProblem("the file exists (choose a new name, or remove it)"))
        }
        let temporary = destination + ".partial-\(getpid())"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError(
                path: temporary, action: "cannot create",
                underlying: ReaderProblem(String(cString: strerror(errno))))
        }
        close(fd)
        do {
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(5)
            let from = try DatabaseQueue(path: source, configuration: config)
            let to = try DatabaseQueue(path: temporary)
            try from.backup(to: to)
            let check = try to.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
            try to.close()
            guard check == ["ok"] else {
                throw ReaderProblem(
                    "integrity check of the copy: \(check.prefix(5).joined(separator: "; "))")
            }
            guard link(temporary, destination) == 0 else {
                throw ReaderProblem(
                    "cannot put the copy at \(destination): \(String(cString: strerror(errno)))")
            }
            unlink(temporary)
        } catch {
            for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
            throw StoreError(path: destination, action: "backup failed", underlying: error)
        }
        let counts = try SQLiteReader(path: destination).counts()
        let size =
            (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int64)
            ?? 0
        return Report(
            bytes: size, positions: counts.positions, alerts: counts.alerts,
            devices: counts.devices, seconds: Date().timeIntervalSince(started))
    }
}
