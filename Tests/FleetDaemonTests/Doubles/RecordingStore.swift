import FleetModel
import FleetStorage
import FleetTracking
import Synchronization

@testable import FleetDaemon

/// A store double for the commit stage's seam: keeps the batches it was
/// given in memory, numbers alerts as a store does, and fails the first
/// `failures` commits. Storage itself is covered by FleetSQLiteTests and
/// the end-to-end tests.
final class RecordingStore: Store, @unchecked Sendable {
    let location = "memory"
    private let state = Mutex<
        (batches: [WriteBatch], failures: Int, nextAlert: Int64, prunes: Int)
    >(
        ([], 0, 1, 0))

    init(failures: Int = 0) { state.withLock { $0.failures = failures } }

    var batches: [WriteBatch] { state.withLock { $0.batches } }
    var prunes: Int { state.withLock { $0.prunes } }

    func loadStates() throws(StoreError) -> [String: DeviceState] { [:] }

    func forEachFixAfterCheckpoint(
        _ states: [String: DeviceState], _ body: (String, [Fix]) throws -> Void
    ) throws(StoreError) {}

    func commit(_ batch: WriteBatch, committedMs: Int64) throws(StoreError) -> [AlertRecord] {
        let result: Result<[AlertRecord], StoreError> = state.withLock { s in
            if s.failures > 0 {
                s.failures -= 1
                return .failure(
                    StoreError(path: location, action: "commit failed", underlying: Refused()))
            }
            s.batches.append(batch)
            return .success(
                batch.alerts.map { a in
                    defer { s.nextAlert += 1 }
                    return AlertRecord(
                        id: s.nextAlert, time: a.time, device: a.device, type: a.type.rawValue,
                        fence: a.fence, lat: a.lat, lon: a.lon, details: nil)
                })
        }
        return try result.get()
    }

    func prune(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int {
        state.withLock { $0.prunes += 1 }
        return 0
    }

    func makeReader() throws(StoreError) -> any StoreReading {
        throw StoreError(path: location, action: "no reader", underlying: Refused())
    }

    func startUpkeep(report: @escaping @Sendable (String?) -> Void) throws(StoreError) {}
    func stopUpkeep() {}

    // People's changes: recorded as audit entries only.
    private let audits = Mutex<[AuditRecord]>([])
    var audited: [AuditRecord] { audits.withLock { $0 } }

    func register(_ device: DeviceRegistration, audit: AuditRecord) throws(StoreError) {
        record(audit)
    }

    func unregister(_ ident: String, audit: AuditRecord) throws(StoreError) -> Bool {
        record(audit)
        return true
    }

    func acknowledge(alert id: Int64, by: String, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> AlertRecord?
    {
        record(audit)
        return nil
    }

    func record(_ audit: AuditRecord) { audits.withLock { $0.append(audit) } }

    func tokensUsed(_ lastUsed: [String: Int64]) throws(StoreError) {}

    func queueCommand(_ command: CommandRecord, audit: AuditRecord) throws(StoreError)
        -> CommandRecord?
    { nil }
    func updateCommand(id: Int64, to status: CommandStatus, atMs: Int64, response: String?)
        throws(StoreError) -> CommandRecord?
    { nil }
    func expireCommands(nowMs: Int64) throws(StoreError) -> [CommandRecord] { [] }
    func addShare(_ share: ShareRecord, audit: AuditRecord) throws(StoreError) -> ShareRecord? {
        nil
    }
    func revokeShare(device: String, id: Int64, atMs: Int64, audit: AuditRecord)
        throws(StoreError) -> Bool
    { false }

    // Webhooks: the subscriptions only (the outbox rows are in the batches).
    private let hooks = Mutex<[WebhookSubscription]>([])

    func webhooks() throws(StoreError) -> [WebhookSubscription] { hooks.withLock { $0 } }

    func putWebhook(_ subscription: WebhookSubscription, since: Int64?, audit: AuditRecord?)
        throws(StoreError) -> Bool
    {
        if let audit { record(audit) }
        return hooks.withLock { h in
            let new = !h.contains { $0.name == subscription.name }
            h.removeAll { $0.name == subscription.name }
            h.append(subscription)
            return new
        }
    }

    func deleteWebhook(_ name: String, audit: AuditRecord?) throws(StoreError) -> Bool {
        if let audit { record(audit) }
        return hooks.withLock { h in
            defer { h.removeAll { $0.name == name } }
            return h.contains { $0.name == name }
        }
    }

    func nextWebhookBatch(_ name: String, nowMs: Int64) throws(StoreError) -> WebhookBatch? { nil }

    func recordWebhookAttempt(_ batch: WebhookBatch, _ attempt: WebhookAttempt, nowMs: Int64)
        throws(StoreError)
    {}

    func webhookSteps(_ steps: [WebhookStep]) throws(StoreError) -> [WebhookBatch?] {
        try webhookStepsOneByOne(steps)
    }

    func pruneWebhooks(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int { 0 }

    func addMaintenance(_ records: [MaintenanceRecord], audit: AuditRecord?) throws(StoreError) {}

    func putUser(_ user: UserRecord, setPassword: Bool, audit: AuditRecord) throws(StoreError)
        -> Bool
    { true }
    func removeUser(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool { false }
    func putMailRule(_ rule: MailRule, audit: AuditRecord) throws(StoreError) -> Bool { true }
    func deleteMailRule(_ name: String, audit: AuditRecord) throws(StoreError) -> Bool { false }

    // The mail outbox: empty (no daemon test here has mail rules).
    func mailCursors(rules: [String], startAt: Int64) throws(StoreError) -> [String: Int64] {
        [:]
    }
    func gatheringMails(rules: [String], nowMs: Int64) throws(StoreError)
        -> [String: GatheringMail]
    { [:] }
    func queueMails(_ plan: MailPlan) throws(StoreError) -> Bool { true }
    func claimMails(nowMs: Int64, leaseMs: Int64, limit: Int) throws(StoreError) -> [MailRecord] {
        []
    }
    func recordMail(_ id: Int64, _ outcome: MailOutcome, nowMs: Int64) throws(StoreError) {}
    func pruneMails(before cutoffMs: Int64, maxRows: Int) throws(StoreError) -> Int { 0 }

    struct Refused: Error {}
}

/// A sink that records what it was told, and what the store held then.
final class RecordingSink: CommitSink, @unchecked Sendable {
    private let seen = Mutex<[(commit: Commit, storedBatches: Int)]>([])
    let store: RecordingStore

    init(store: RecordingStore) { self.store = store }

    func committed(_ commit: Commit) {
        let stored = store.batches.count
        seen.withLock { $0.append((commit, stored)) }
    }

    var commits: [(commit: Commit, storedBatches: Int)] { seen.withLock { $0 } }
}
