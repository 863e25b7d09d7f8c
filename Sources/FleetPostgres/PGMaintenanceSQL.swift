import FleetStorage

/// The `maintenance` table's statements (migration 8), shared by the
/// store, fleetctl's changes and the reader.
enum PGMaintenanceSQL {
    static func insert(_ r: MaintenanceRecord, _ s: PGSession) throws {
        _ = try s.run(
            """
            INSERT INTO maintenance (plan, device, done_ms, odometer_m, done_by, note)
            VALUES ($1,$2,$3,$4,$5,$6)
            """, .of(r.plan, r.device, r.doneMs, r.odometerM, r.by, r.note))
    }

    static func list(device: String?, latestOnly: Bool, _ s: PGSession) throws
        -> [MaintenanceRecord]
    {
        var conditions: [String] = []
        if device != nil { conditions.append("m.device = $1") }
        if latestOnly {
            conditions.append(
                """
                m.id = (SELECT l.id FROM maintenance l WHERE l.device = m.device AND l.plan = m.plan
                  ORDER BY (l.done_by = 'plan'), l.done_ms DESC, l.id DESC LIMIT 1)
                """)
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try s.query(
            """
            SELECT m.id, m.plan, m.device, m.done_ms, m.odometer_m, m.done_by, m.note
            FROM maintenance m \(filter) ORDER BY m.done_ms DESC, m.id DESC
            """, device.map { .of($0) } ?? .of()
        ).map {
            MaintenanceRecord(
                id: try $0[0], plan: try $0[1], device: try $0[2], doneMs: try $0[3],
                odometerM: try $0[4], by: try $0[5], note: try $0[6])
        }
    }
}

extension PostgresStore {
    public func addMaintenance(_ records: [MaintenanceRecord], audit: AuditRecord?)
        throws(StoreError)
    {
        try link.transaction("cannot store maintenance records") { s in
            for r in records { try PGMaintenanceSQL.insert(r, s) }
            if let audit { try PGAdminSQL.record(audit, s) }
        }
    }
}

extension PostgresAdministration {
    public func addMaintenance(_ record: MaintenanceRecord, audit: AuditRecord) throws(StoreError) {
        try link.transaction("cannot record maintenance of \(record.device)") { s in
            try PGMaintenanceSQL.insert(record, s)
            try PGAdminSQL.record(audit, s)
        }
    }
}

extension PostgresReader {
    public func maintenance(device: String?, latestOnly: Bool) throws(StoreError)
        -> [MaintenanceRecord]
    {
        try read("cannot read the maintenance records") { s in
            try PGMaintenanceSQL.list(device: device, latestOnly: latestOnly, s)
        }
    }
}
