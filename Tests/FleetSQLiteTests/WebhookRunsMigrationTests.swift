import FleetStorage
import Foundation
import GRDB
import Testing

@testable import FleetSQLite

extension MigrationTests {
    /// The per-alert outbox rows of v9–v19 become runs (v20): what each
    /// subscription was owed is owed still, batched as before.
    @Test func perAlertOutboxRowsBecomeRunsWithNothingOwedLostOrAdded() throws {
        let path = temporaryDatabase()
        do {
            let q = try Self.database(
                at: path, upTo: "v19: alerts by fence found through id slices")
            try q.write { db in
                try db.execute(
                    sql: "INSERT INTO devices (id, ident, created_ms) VALUES (1, 'a', 0)")
                for id in 1...6 {
                    try db.execute(
                        sql: """
                            INSERT INTO alerts (id, time_ms, device_id, type, fence, lat, lon, committed_ms)
                            VALUES (?, ?, 1, 'geofence_enter', 'depot', 48, 11, 1000)
                            """, arguments: [id, 1000 + id])
                }
                for (id, name) in [(1, "a"), (2, "b")] {
                    try db.execute(
                        sql: """
                            INSERT INTO webhooks (id, name, url, secret, types, devices, fences,
                              allow_private, batch_max, timeout_s, max_age_h, origin, created_ms)
                            VALUES (?, ?, 'https://example.com/', 'whsec_x', '[]', '[]', '[]', 0, 100, 10, 72, 'api', 0)
                            """, arguments: [id, name])
                }
                // Alert 3 owed to nobody; 4 and 5 to "b" only.
                for (alert, hooks) in [
                    (1, ",1,2,"), (2, ",1,2,"), (4, ",2,"), (5, ",2,"), (6, ",1,"),
                ] {
                    try db.execute(
                        sql: "INSERT INTO webhook_outbox (alert_id, hooks) VALUES (?, ?)",
                        arguments: [alert, hooks])
                }
            }
        }
        let store = try SQLiteStore(path: path)
        let reader = try SQLiteReader(path: path)
        for (name, want) in [("a", [1, 2, 6] as [Int64]), ("b", [1, 2, 4, 5])] {
            let batch = try #require(try store.nextWebhookBatch(name, nowMs: 2000))
            #expect(try reader.webhookAlerts(batch).map(\.id) == want, "\(name)")
            #expect(batch.count == want.count)
        }
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'webhook_%'")
        }
        #expect(!tables.contains("webhook_outbox") && tables.contains("webhook_runs"))
    }
}
