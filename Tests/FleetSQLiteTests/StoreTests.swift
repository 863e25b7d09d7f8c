import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import GRDB
import Testing

@testable import FleetSQLite

func temporaryDatabase() -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
        "fleetd-store-\(UUID().uuidString)")
    return dir.appendingPathComponent("sub/fleetd.db").path
}

/// What only the SQLite backend does; the behaviour both backends share is
/// in StorageBehaviourTests.
@Suite struct StoreTests {
    @Test func readerNamesAMissingDatabase() {
        #expect(throws: StoreError.self) { try SQLiteReader(path: "/nonexistent/fleetd.db") }
    }

    /// The writer's grouped inserts keep their statement journals in memory,
    /// not in a file created and deleted in every commit (`Schema.openWritable`).
    @Test func writerKeepsItsTemporaryStorageInMemory() throws {
        let path = temporaryDatabase()
        defer {
            try? FileManager.default.removeItem(
                atPath: (path as NSString).deletingLastPathComponent)
        }
        let store = try SQLiteStore(path: path)
        let mode = try store.queue.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA temp_store")
        }
        #expect(mode == 2)  // MEMORY (https://sqlite.org/pragma.html#pragma_temp_store)
    }
}
