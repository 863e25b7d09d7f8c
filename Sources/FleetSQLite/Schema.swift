import FleetStorage
import FleetTracking
import Foundation
import GRDB

/// The database schema, as versioned migrations (GRDB `DatabaseMigrator`).
///
/// Migrations only ever append: a database written by an older fleetd is
/// brought up to date on open, and never rewritten backwards.
public enum Schema {
    /// Opens (creating its folder and the file when missing) a read-write
    /// connection in WAL mode with a 5 s busy timeout, runs pending
    /// migrations, then keeps the connection's temporary storage in memory.
    /// `synchronous` nil keeps SQLite's default for the connection.
    ///
    /// `temp_store = MEMORY` (https://sqlite.org/pragma.html#pragma_temp_store):
    /// a statement that writes many rows inside a transaction (the writer's
    /// grouped `INSERT … VALUES (…),(…)`) keeps a statement journal of the
    /// pages it changes (https://sqlite.org/tempfiles.html, section 2.5), and
    /// past 64 KiB SQLite spills it to a file it creates and unlinks in the
    /// temporary folder: a file created, written and deleted on the writer's
    /// thread in every commit, each a metadata change of the file system that
    /// can wait for its journal. In memory, a statement's journal is only what
    /// that statement changes and is emptied when it ends. Set only after the
    /// migrations: one that builds an index over a large table sorts it, and
    /// with temporary storage in memory SQLite's sorter would hold the whole
    /// sort in memory instead of spilling it to files.
    static func openWritable(path: String, synchronous: SynchronousMode?) throws -> DatabaseQueue {
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            if let synchronous {
                try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
            }
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try migrator.migrate(queue)
        try queue.inDatabase { try $0.execute(sql: "PRAGMA temp_store = MEMORY") }
        return queue
    }

    public static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: devices, positions, alerts, device state") { db in
            try db.execute(
                sql: """
                    CREATE TABLE devices (
                        id INTEGER PRIMARY KEY,
                        ident TEXT NOT NULL UNIQUE,
                        name TEXT, plate TEXT, vin TEXT,
                        created_ms INTEGER NOT NULL
                    );
                    CREATE TABLE positions (
                        device_id INTEGER NOT NULL,
                        time_ms INTEGER NOT NULL,
                        lat REAL NOT NULL, lon REAL NOT NULL,
                        speed_kmh REAL, course REAL, alt_m REAL, accuracy_m REAL,
                        sats INTEGER, ignition INTEGER,
                        valid INTEGER NOT NULL,
                        disposition INTEGER NOT NULL,
                        received_ms INTEGER NOT NULL,
                        PRIMARY KEY (device_id, time_ms)
                    ) WITHOUT ROWID;
                    CREATE TABLE alerts (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        time_ms INTEGER NOT NULL,
                        device_id INTEGER NOT NULL,
                        type TEXT NOT NULL,
                        fence TEXT,
                        lat REAL, lon REAL,
                        committed_ms INTEGER NOT NULL
                    );
                    CREATE INDEX alerts_by_device ON alerts(device_id, id);
                    CREATE TABLE device_state (
                        device_id INTEGER PRIMARY KEY,
                        last_time_ms INTEGER NOT NULL,
                        lat REAL, lon REAL,
                        fences TEXT NOT NULL
                    );
                    """)
        }
        m.registerMigration("v2: device extras on positions (Teltonika IO, NMEA quality)") { db in
            for column in [
                "priority INTEGER", "movement INTEGER", "gsm_signal INTEGER",
                "ext_voltage_mv INTEGER",
                "odometer_m INTEGER", "gnss_status INTEGER", "fix_quality INTEGER", "hdop REAL",
                "io BLOB",
                "io_codec INTEGER",
            ] {
                try db.execute(sql: "ALTER TABLE positions ADD COLUMN \(column)")
            }
        }
        m.registerMigration("v3: device registry") { db in
            try db.execute(
                sql: "ALTER TABLE devices ADD COLUMN registered INTEGER NOT NULL DEFAULT 0")
        }
        m.registerMigration("v4: alert details, time of the state's position") { db in
            try db.execute(sql: "ALTER TABLE alerts ADD COLUMN details TEXT")
            try db.execute(sql: "ALTER TABLE device_state ADD COLUMN position_time_ms INTEGER")
        }
        m.registerMigration("v5: trips, odometer and the rest of the tracking state") { db in
            try db.execute(
                sql: """
                    ALTER TABLE device_state ADD COLUMN odometer_m REAL NOT NULL DEFAULT 0;
                    ALTER TABLE device_state ADD COLUMN silent INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE device_state ADD COLUMN tracking TEXT;
                    CREATE TABLE trips (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        device_id INTEGER NOT NULL,
                        start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL,
                        start_lat REAL NOT NULL, start_lon REAL NOT NULL,
                        end_lat REAL NOT NULL, end_lon REAL NOT NULL,
                        start_fence TEXT, end_fence TEXT,
                        distance_m REAL NOT NULL,
                        max_speed_kmh REAL NOT NULL,
                        fixes INTEGER NOT NULL,
                        start_odometer_m REAL NOT NULL, end_odometer_m REAL NOT NULL
                    );
                    CREATE INDEX trips_by_device ON trips(device_id, start_ms);
                    CREATE INDEX trips_by_start ON trips(start_ms);
                    """)
        }
        m.registerMigration(
            "v6: positions in arrival order, found by (device, time) through an index"
        ) { db in
            // Positions were clustered by (device, time): a fleet's fixes arrive
            // in no device order, so every fix landed on a page of its own and a
            // commit rewrote about one 4 KiB page per fix, read first when it had
            // left the cache. Now rows append in arrival order (rowid) and only
            // the small index entries scatter.
            let columns = """
                device_id, time_ms, lat, lon, speed_kmh, course, alt_m, accuracy_m, sats, ignition,
                valid, disposition, received_ms, priority, movement, gsm_signal, ext_voltage_mv,
                odometer_m, gnss_status, fix_quality, hdop, io, io_codec
                """
            try db.execute(
                sql: """
                    CREATE TABLE positions_v6 (
                        id INTEGER PRIMARY KEY,
                        device_id INTEGER NOT NULL,
                        time_ms INTEGER NOT NULL,
                        lat REAL NOT NULL, lon REAL NOT NULL,
                        speed_kmh REAL, course REAL, alt_m REAL, accuracy_m REAL,
                        sats INTEGER, ignition INTEGER,
                        valid INTEGER NOT NULL,
                        disposition INTEGER NOT NULL,
                        received_ms INTEGER NOT NULL,
                        priority INTEGER, movement INTEGER, gsm_signal INTEGER, ext_voltage_mv INTEGER,
                        odometer_m INTEGER, gnss_status INTEGER, fix_quality INTEGER, hdop REAL,
                        io BLOB, io_codec INTEGER
                    );
                    INSERT INTO positions_v6 (\(columns))
                      SELECT \(columns) FROM positions ORDER BY received_ms, device_id, time_ms;
                    DROP TABLE positions;
                    ALTER TABLE positions_v6 RENAME TO positions;
                    CREATE UNIQUE INDEX positions_by_device_time ON positions(device_id, time_ms);
                    """)
        }
        m.registerMigration("v7: device state as one binary value") { db in
            // `DeviceStateCodec`: the text columns `fences` and `tracking` took
            // most of the writer's time per checkpointed state to build. Rows
            // written before keep them (and a NULL `state`) until next written.
            try db.execute(sql: "ALTER TABLE device_state ADD COLUMN state BLOB")
        }
        m.registerMigration(
            "v8: people and programs: users, tokens, audit, alert acks, phone extras"
        ) { db in
            try db.execute(
                sql: """
                    ALTER TABLE alerts ADD COLUMN acked_by TEXT;
                    ALTER TABLE alerts ADD COLUMN acked_ms INTEGER;
                    ALTER TABLE positions ADD COLUMN battery REAL;
                    ALTER TABLE positions ADD COLUMN charging INTEGER;
                    ALTER TABLE positions ADD COLUMN attributes TEXT;
                    CREATE TABLE users (
                        name TEXT PRIMARY KEY,
                        role TEXT NOT NULL,
                        password_hash TEXT NOT NULL,
                        created_ms INTEGER NOT NULL
                    );
                    CREATE TABLE tokens (
                        name TEXT PRIMARY KEY,
                        role TEXT NOT NULL,
                        secret_hash TEXT NOT NULL UNIQUE,
                        created_ms INTEGER NOT NULL,
                        last_used_ms INTEGER
                    );
                    CREATE TABLE audit (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        time_ms INTEGER NOT NULL,
                        actor TEXT NOT NULL,
                        action TEXT NOT NULL,
                        target TEXT NOT NULL,
                        detail TEXT
                    );
                    CREATE INDEX alerts_by_fence ON alerts(fence, id);
                    """)
        }
        m.registerMigration("v9: webhook subscriptions, their outbox and batches") { db in
            try db.execute(
                sql: """
                    CREATE TABLE webhooks (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL UNIQUE,
                        url TEXT NOT NULL,
                        secret TEXT NOT NULL,
                        types TEXT NOT NULL, devices TEXT NOT NULL, fences TEXT NOT NULL,
                        allow_private INTEGER NOT NULL,
                        batch_max INTEGER NOT NULL,
                        timeout_s REAL NOT NULL,
                        max_age_h REAL NOT NULL,
                        origin TEXT NOT NULL,
                        disabled TEXT,
                        cursor INTEGER NOT NULL DEFAULT 0,
                        scanned INTEGER NOT NULL DEFAULT 0,
                        delivered INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        last_delivery_ms INTEGER,
                        created_ms INTEGER NOT NULL
                    );
                    CREATE TABLE webhook_outbox (
                        alert_id INTEGER PRIMARY KEY,
                        hooks TEXT NOT NULL
                    );
                    CREATE TABLE webhook_batches (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        webhook TEXT NOT NULL,
                        message_id TEXT NOT NULL UNIQUE,
                        first_alert INTEGER NOT NULL,
                        last_alert INTEGER NOT NULL,
                        alerts INTEGER NOT NULL,
                        oldest_ms INTEGER NOT NULL,
                        created_ms INTEGER NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        refusals INTEGER NOT NULL DEFAULT 0,
                        next_ms INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        done_ms INTEGER
                    );
                    CREATE INDEX webhook_batches_by_state ON webhook_batches(webhook, state, id);
                    CREATE INDEX webhook_batches_by_done ON webhook_batches(state, done_ms);
                    """)
        }
        m.registerMigration("v10: trips name their fences by id too") { db in
            try db.execute(
                sql: """
                    ALTER TABLE trips ADD COLUMN start_fence_id TEXT;
                    ALTER TABLE trips ADD COLUMN end_fence_id TEXT;
                    """)
        }
        m.registerMigration("v11: trips count the detour of their late fixes") { db in
            // `late_detour_m` is kept apart from the tracked `distance_m`, so
            // that it is recomputed from the stored fixes each time (a late
            // fix stored twice counts once). The partial index holds the
            // few `late` rows only: a trip looks for its own at insert.
            try db.execute(
                sql: """
                    ALTER TABLE trips ADD COLUMN late_detour_m REAL NOT NULL DEFAULT 0;
                    CREATE INDEX positions_late ON positions(device_id, time_ms)
                      WHERE disposition = \(FixDisposition.late.rawValue);
                    """)
        }
        m.registerMigration("v12: commands to devices") { db in
            // `commands_open` holds what is still owed (queued or sent): the
            // daemon's poll and expiry read it; the listing reads by device.
            try db.execute(
                sql: """
                    CREATE TABLE commands (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      device_id INTEGER NOT NULL REFERENCES devices(id),
                      text TEXT NOT NULL,
                      status TEXT NOT NULL,
                      actor TEXT NOT NULL,
                      queued_ms INTEGER NOT NULL,
                      expires_ms INTEGER NOT NULL,
                      sent_ms INTEGER,
                      answered_ms INTEGER,
                      response TEXT
                    );
                    CREATE INDEX commands_by_device ON commands(device_id, id);
                    CREATE INDEX commands_open ON commands(status, id) WHERE status IN ('queued', 'sent');
                    """)
        }
        m.registerMigration("v13: trips name their driver") { db in
            try db.execute(sql: "ALTER TABLE trips ADD COLUMN driver TEXT")
        }
        m.registerMigration("v14: links that share a vehicle") { db in
            try db.execute(
                sql: """
                    CREATE TABLE shares (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      device_id INTEGER NOT NULL REFERENCES devices(id),
                      token_hash TEXT NOT NULL UNIQUE,
                      created_ms INTEGER NOT NULL,
                      expires_ms INTEGER NOT NULL,
                      created_by TEXT NOT NULL,
                      revoked_ms INTEGER
                    );
                    CREATE INDEX shares_by_device ON shares(device_id, id);
                    """)
        }
        m.registerMigration("v15: the mail outbox") { db in
            try db.execute(sql: MailSQL.schema)
        }
        m.registerMigration("v16: maintenance records") { db in
            try db.execute(sql: MaintenanceSQL.schema)
        }
        m.registerMigration("v17: groups of vehicles, users limited to groups, drivers") { db in
            try db.execute(
                sql: """
                    ALTER TABLE devices ADD COLUMN grp TEXT;
                    CREATE INDEX devices_by_group ON devices(grp, ident) WHERE grp IS NOT NULL;
                    ALTER TABLE users ADD COLUMN groups TEXT NOT NULL DEFAULT '';
                    ALTER TABLE users ADD COLUMN device TEXT;
                    """)
        }
        m.registerMigration(
            "v18: users' email and iButton key, notification rules made through the API"
        ) { db in
            try db.execute(
                sql:
                    "ALTER TABLE users ADD COLUMN email TEXT; ALTER TABLE users ADD COLUMN driver_key TEXT;"
                    + MailRuleSQL.schema)
        }
        m.registerMigration("v19: alerts by fence found through id slices") { db in
            try db.execute(sql: AlertSlices.schema)
        }
        m.registerMigration("v20: the webhook outbox in runs of alerts") { db in
            try db.execute(sql: WebhookSQL.runsSchema)
        }
        return m
    }
}
