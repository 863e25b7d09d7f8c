import FleetStorage
import GRDB

extension DatabaseQueue {
    /// One write transaction; any failure becomes a `StoreError` naming
    /// the database and `action`.
    func write<T>(path: String, _ action: String, _ body: (Database) throws -> T) throws(StoreError)
        -> T
    {
        do {
            return try write(body)
        } catch {
            throw StoreError(path: path, action: action, underlying: error)
        }
    }
}
