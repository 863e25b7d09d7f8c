import GRDB

/// How alerts are found by fence: an index whose first key is the alert's
/// id slice (`id >> 14`, 16 384 alerts a slice), then the fence and the id.
///
/// An index on `(fence, id)` puts each new alert on a different leaf page
/// (a fix entering 20 of the standard 10 000 fences touches 20 of them), so
/// a commit of n alerts writes about n pages of the index into the WAL and
/// later into the database. With the slice first, new alerts land in the
/// newest slice's few dozen pages, and a commit writes each of those at
/// most once. A query by fence seeks once per slice (`SQLiteReader.alerts`):
/// 2 M alerts are 123 slices, 100 M are 6 104.
///
/// Alerts by device keep `alerts_by_device (device_id, id)`: a fix's
/// alerts are one device's, next to each other in that index.
///
/// The planner uses an index on an expression only where a query names the
/// same expression, `(id >> 14)`:
/// https://www.sqlite.org/expridx.html
public enum AlertSlices {
    /// Bits of an alert id below its slice (schema v19's index: never
    /// changed, or queries would no longer name the index's expression).
    public static let shift = 14

    /// The slice of alert `id`.
    public static func slice(_ id: Int64) -> Int64 { id >> Int64(shift) }

    /// The condition that names the index's first key (`a` is `alerts`).
    static let condition = "(a.id >> \(shift)) = ?"

    /// Puts back the index of schemas v8–v18, `alerts_by_fence (fence, id)`,
    /// in place of the sliced one: the "before" of `fleetbench store
    /// --plain-fence-index`. Queries by fence then walk slices without
    /// their index (correct, slow); not for a database fleetd serves.
    public static func restorePlainIndex(_ store: SQLiteStore) throws {
        try store.queue.write { db in
            try db.execute(
                sql: """
                    DROP INDEX IF EXISTS alerts_by_slice_fence;
                    CREATE INDEX IF NOT EXISTS alerts_by_fence ON alerts(fence, id);
                    """)
        }
    }

    /// Schema v19. `shift` is part of it: a database's index and its
    /// queries must agree, so it never changes.
    static let schema = """
        DROP INDEX IF EXISTS alerts_by_fence;
        CREATE INDEX alerts_by_slice_fence ON alerts((id >> \(shift)), fence, id);
        """
}
