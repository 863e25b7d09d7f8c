import FleetModel
import FleetStorage
import FleetTracking
import Foundation
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
}
