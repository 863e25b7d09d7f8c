import FleetStorage
import GRDB

/// The `maintenance` table (schema v16) and its statements, shared by the
/// store, fleetctl's changes and the reader.
enum MaintenanceSQL {
    static let schema = """
        CREATE TABLE maintenance (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          plan TEXT NOT NULL,
          device TEXT NOT NULL,
          done_ms INTEGER NOT NULL,
          odometer_m REAL NOT NULL,
          done_by TEXT NOT NULL,
          note TEXT
        );
        CREATE INDEX maintenance_by_device ON maintenance(device, plan, done_ms);
        """

    static func insert(_ r: MaintenanceRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO maintenance (plan, device, done_ms, odometer_m, done_by, note)
                VALUES (?,?,?,?,?,?)
                """, arguments: [r.plan, r.device, r.doneMs, r.odometerM, r.by, r.note])
    }

    static func list(device: String?, latestOnly: Bool, _ db: Database) throws
        -> [MaintenanceRecord]
    {
        guard try db.tableExists("maintenance") else { return [] }
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let device {
            conditions.append("m.device = ?")
            arguments.append(device)
        }
        if latestOnly {
            conditions.append(
                """
                m.id = (SELECT l.id FROM maintenance l WHERE l.device = m.device AND l.plan = m.plan
                  ORDER BY (l.done_by = 'plan'), l.done_ms DESC, l.id DESC LIMIT 1)
                """)
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try Row.fetchAll(
            db,
            sql: """
                SELECT m.id, m.plan, m.device, m.done_ms, m.odometer_m, m.done_by, m.note
                FROM maintenance m \(filter) ORDER BY m.done_ms DESC, m.id DESC
                """, arguments: StatementArguments(arguments)
        ).map {
            MaintenanceRecord(
                id: $0[0], plan: $0[1], device: $0[2], doneMs: $0[3], odometerM: $0[4], by: $0[5],
                note: $0[6])
        }
    }
}

extension SQLiteStore {
    public func addMaintenance(_ records: [MaintenanceRecord], audit: AuditRecord?)
        throws(StoreError)
    {
        try queue.write(path: path, "cannot store maintenance records") { db in
            for r in records { try MaintenanceSQL.insert(r, db) }
            if let audit { try AdminSQL.record(audit, db) }
        }
    }
}

extension Credentials {
    public func addMaintenance(_ record: MaintenanceRecord, audit: AuditRecord) throws(StoreError) {
        try queue.write(path: path, "cannot record maintenance of \(record.device)") { db in
            try MaintenanceSQL.insert(record, db)
            try AdminSQL.record(audit, db)
        }
    }
}

extension SQLiteReader {
    public func maintenance(device: String?, latestOnly: Bool) throws(StoreError)
        -> [MaintenanceRecord]
    {
        try read("cannot read the maintenance records") { db in
            try MaintenanceSQL.list(device: device, latestOnly: latestOnly, db)
        }
    }
}
