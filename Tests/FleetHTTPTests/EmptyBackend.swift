import FleetGeo
import FleetHTTP
import FleetProtocols
import FleetStorage
import FleetTracking

/// A daemon with nothing in it, for tests that build the routes but call
/// none of them through a store: every read finds nothing, every change fails.
struct EmptyBackend: APIBackend {
    /// API tokens by the SHA-256 of their secret: the only thing this store holds.
    var tokens: [String: TokenRecord] = [:]
    var reader: any StoreReading { EmptyReader(tokensByHash: tokens) }
    func status() -> DaemonStatus {
        DaemonStatus(
            pid: 0, state: "running", timeMs: 0, startedMs: 0, listening: "", fixesPerS: 0,
            datagrams: 0, fixesIn: 0, fixesStored: 0, alerts: 0, commits: 0, queueFixes: 0,
            statesUnwritten: 0, lastCommitMs: 0, storageError: nil, rejected: [:])
    }
    func notReady() -> String? { nil }
    func change<T: Sendable>(_ change: @escaping @Sendable (any Store) throws(StoreError) -> T)
        async throws -> T
    {
        throw APIUnavailable("no store here")
    }
    func changeWebhooks<T: Sendable>(
        _ change: @escaping @Sendable (any Store) throws(StoreError) -> T
    ) async throws -> T {
        throw APIUnavailable("no store here")
    }
    func tripsUnderWay(_ filter: TripFilter) -> [TripRecord] { [] }
    func fencesDocument() -> [UInt8] { [] }
    func replaceFences(_ document: [UInt8]) async throws -> [FenceProblem] { [] }
    func ingest(
        _ decoding: WireDecoding, proto: TrackerProtocol, receivedMs: Int64, peer: String
    ) async -> IngestOutcome { .busy }
    func queueCommand(device: String, command: CommandRequest, actor: String) async throws
        -> CommandOutcome
    { .unknownDevice }
}

/// A store with nothing stored.
struct EmptyReader: StoreReading {
    var tokensByHash: [String: TokenRecord] = [:]
    func alerts(
        afterId: Int64, beforeId: Int64, newestFirst: Bool, limit: Int, filter: AlertFilter
    ) throws(StoreError) -> [AlertRecord] { [] }
    func positions(device: String, fromMs: Int64?, toMs: Int64?, limit: Int) throws(StoreError)
        -> [PositionRecord]
    { [] }
    func alert(id: Int64) throws(StoreError) -> AlertRecord? { nil }
    func deviceStates(device: String?) throws(StoreError) -> [String: DeviceState] { [:] }
    func device(_ ident: String) throws(StoreError) -> DeviceRecord? { nil }
    func user(named name: String) throws(StoreError) -> UserRecord? { nil }
    func users() throws(StoreError) -> [UserRecord] { [] }
    func token(secretHash: String) throws(StoreError) -> TokenRecord? { tokensByHash[secretHash] }
    func tokens() throws(StoreError) -> [TokenRecord] { [] }
    func audit(afterId: Int64, limit: Int) throws(StoreError) -> [AuditRecord] { [] }
    func trips(filter: TripFilter, limit: Int) throws(StoreError) -> [TripRecord] { [] }
    func counts() throws(StoreError) -> (positions: Int, alerts: Int, devices: Int) { (0, 0, 0) }
    func devices() throws(StoreError) -> [DeviceRecord] { [] }
    func devices(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [DeviceRecord]
    { [] }
    func deviceGroup(_ ident: String) throws(StoreError) -> String? { nil }
    func deviceGroups() throws(StoreError) -> [String: String] { [:] }
    func registeredDevices() throws(StoreError) -> Set<String> { [] }
    func deviceIdents() throws(StoreError) -> Set<String> { [] }
    func shares(device: String) throws(StoreError) -> [ShareRecord] { [] }
    func share(tokenHash: String) throws(StoreError) -> ShareRecord? { nil }
    func commands(device: String?, statuses: [CommandStatus], limit: Int) throws(StoreError)
        -> [CommandRecord]
    { [] }
    func deviceNames() throws(StoreError) -> [String: String] { [:] }
    func alertCountsByType() throws(StoreError) -> [(type: String, count: Int)] { [] }
    func lastAlertId() throws(StoreError) -> Int64 { 0 }
    func positionSpans(device: String?, fromMs: Int64, toMs: Int64) throws(StoreError)
        -> [PositionSpan]
    { [] }
    func fencesInside(device: String?, beforeMs: Int64?) throws(StoreError) -> [String: [String]] {
        [:]
    }
    func vehicles(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [VehicleRecord]
    { [] }
    func webhookAlerts(_ batch: WebhookBatch) throws(StoreError) -> [AlertRecord] { [] }
    func webhookStatuses() throws(StoreError) -> [WebhookStatus] { [] }
    func maintenance(device: String?, latestOnly: Bool) throws(StoreError) -> [MaintenanceRecord] {
        []
    }
    func mails(statuses: [MailRecord.Status], limit: Int) throws(StoreError) -> [MailRecord] {
        []
    }
    func mailRules() throws(StoreError) -> [MailRule] { [] }
}
