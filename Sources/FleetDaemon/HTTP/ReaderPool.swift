import FleetStorage
import FleetTracking
import Synchronization

/// Several store readers (each its own connection) handed out in turn, so
/// API requests read in parallel; itself a `StoreReading`.
final class ReaderPool: StoreReading {
    private let readers: [any StoreReading]
    private let next = Atomic<Int>(0)

    /// `count` readers from `store` (made before the writer thread starts).
    init(store: any Store, count: Int) throws(StoreError) {
        var r: [any StoreReading] = []
        for _ in 0..<max(count, 1) { r.append(try store.makeReader()) }
        readers = r
    }

    private var one: any StoreReading {
        readers[next.add(1, ordering: .relaxed).oldValue % readers.count]
    }

    func alerts(afterId: Int64, limit: Int, filter: AlertFilter) throws(StoreError) -> [AlertRecord]
    {
        try one.alerts(afterId: afterId, limit: limit, filter: filter)
    }
    func positions(device: String, fromMs: Int64?, toMs: Int64?, limit: Int) throws(StoreError)
        -> [PositionRecord]
    {
        try one.positions(device: device, fromMs: fromMs, toMs: toMs, limit: limit)
    }
    func alert(id: Int64) throws(StoreError) -> AlertRecord? { try one.alert(id: id) }
    func device(_ ident: String) throws(StoreError) -> DeviceRecord? { try one.device(ident) }
    func user(named name: String) throws(StoreError) -> UserRecord? { try one.user(named: name) }
    func users() throws(StoreError) -> [UserRecord] { try one.users() }
    func deviceStates(device: String?) throws(StoreError) -> [String: DeviceState] {
        try one.deviceStates(device: device)
    }
    func token(secretHash: String) throws(StoreError) -> TokenRecord? {
        try one.token(secretHash: secretHash)
    }
    func tokens() throws(StoreError) -> [TokenRecord] { try one.tokens() }
    func audit(afterId: Int64, limit: Int) throws(StoreError) -> [AuditRecord] {
        try one.audit(afterId: afterId, limit: limit)
    }
    func trips(filter: TripFilter, limit: Int) throws(StoreError) -> [TripRecord] {
        try one.trips(filter: filter, limit: limit)
    }
    func counts() throws(StoreError) -> (positions: Int, alerts: Int, devices: Int) {
        try one.counts()
    }
    func devices() throws(StoreError) -> [DeviceRecord] { try one.devices() }
    func devices(after: String, limit: Int) throws(StoreError) -> [DeviceRecord] {
        try one.devices(after: after, limit: limit)
    }
    func registeredDevices() throws(StoreError) -> Set<String> { try one.registeredDevices() }
    func deviceNames() throws(StoreError) -> [String: String] { try one.deviceNames() }
    func alertCountsByType() throws(StoreError) -> [(type: String, count: Int)] {
        try one.alertCountsByType()
    }
    func lastAlertId() throws(StoreError) -> Int64 { try one.lastAlertId() }
    func positionSpans(device: String?, fromMs: Int64, toMs: Int64) throws(StoreError)
        -> [PositionSpan]
    {
        try one.positionSpans(device: device, fromMs: fromMs, toMs: toMs)
    }
    func fencesInside(device: String?, beforeMs: Int64?) throws(StoreError) -> [String: [String]] {
        try one.fencesInside(device: device, beforeMs: beforeMs)
    }
    func vehicles(after: String, limit: Int) throws(StoreError) -> [VehicleRecord] {
        try one.vehicles(after: after, limit: limit)
    }
    func webhookAlerts(_ batch: WebhookBatch) throws(StoreError) -> [AlertRecord] {
        try one.webhookAlerts(batch)
    }
    func webhookStatuses() throws(StoreError) -> [WebhookStatus] { try one.webhookStatuses() }
}
