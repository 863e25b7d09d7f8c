/// Read-only queries over a store, for `fleetctl`, the daemon's registry
/// check and (next) the HTTP API. Implementations read consistent
/// snapshots and never block the writer. Thread-safe.
public protocol StoreReading: Sendable {
    /// Alerts with id greater than `afterId`, oldest first, at most `limit`.
    func alerts(afterId: Int64, limit: Int, filter: AlertFilter) throws(StoreError) -> [AlertRecord]

    /// A device's stored positions in fix-time order, at most `limit`.
    func positions(device: String, limit: Int) throws(StoreError) -> [PositionRecord]

    /// Finished trips, oldest first, at most `limit`.
    func trips(filter: TripFilter, limit: Int) throws(StoreError) -> [TripRecord]

    /// How many positions, alerts and devices are stored.
    func counts() throws(StoreError) -> (positions: Int, alerts: Int, devices: Int)

    /// Every device known, registered or seen in traffic.
    func devices() throws(StoreError) -> [DeviceRecord]

    /// The ids of registered devices.
    func registeredDevices() throws(StoreError) -> Set<String>

    /// Alerts stored per type.
    func alertCountsByType() throws(StoreError) -> [(type: String, count: Int)]

    /// The highest alert id (0 when none).
    func lastAlertId() throws(StoreError) -> Int64
}
