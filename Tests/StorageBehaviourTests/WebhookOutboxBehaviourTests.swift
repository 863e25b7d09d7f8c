import FleetStorage
import FleetTestSupport
import FleetTracking
import Foundation
import Testing

/// The webhook outbox, the same on every backend: rows committed with their
/// alerts, batches formed in id order with a `webhook-id` that stays, and
/// what each attempt's outcome does.
@Suite(.serialized, .offPool) struct WebhookOutboxBehaviourTests {
    static let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()

    func hook(_ name: String, batchMax: Int = 100, maxAgeH: Double = 72, types: [String] = [])
        -> WebhookSubscription
    {
        WebhookSubscription(
            name: name, url: "https://example.com/\(name)", secret: Self.secret, types: types,
            batchMax: batchMax, maxAgeH: maxAgeH)
    }

    /// Commits `n` alerts, each owed to `webhooks`; alternately enter and
    /// exit, at `t`, `t` + 1 ms, … (an alert of the same device, type,
    /// fence and time is one alert to PostgreSQL's `alerts_once`: calls
    /// that mean new alerts start at a new `t`).
    func commitAlerts(
        _ store: any Store, _ n: Int, to webhooks: [String], at committedMs: Int64 = 1000,
        from t: Int64 = 1000
    ) throws {
        var b = WriteBatch()
        for i in 0..<n {
            b.alerts.append(
                Alert(
                    type: i % 2 == 0 ? .geofenceEnter : .geofenceExit, device: "truck-\(i % 3)",
                    time: t + Int64(i), fence: "depot", lat: 48, lon: 11))
        }
        // One run for them all (a storm's way).
        if !webhooks.isEmpty { b.outbox.append((0..<n, webhooks)) }
        try store.commit(b, committedMs: committedMs)
    }

    /// Forms and delivers `name`'s batches until none is owed; returns each
    /// batch's alert ids, checked against the batch's range and count.
    func deliverAll(_ name: String, _ store: any Store, _ reader: any StoreReading) throws
        -> [[Int64]]
    {
        var batches: [[Int64]] = []
        while let batch = try store.nextWebhookBatch(name, nowMs: 2000) {
            let ids = try reader.webhookAlerts(batch).map(\.id)
            #expect(ids.count == batch.count, "\(name)")
            #expect(ids.first == batch.firstAlert && ids.last == batch.lastAlert, "\(name)")
            batches.append(ids)
            try store.recordWebhookAttempt(batch, .delivered(status: 204), nowMs: 2000)
        }
        return batches
    }

    @Test(arguments: BackendKind.allCases) func batchesGoInIdOrderAndKeepTheirIdUntilDelivered(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        #expect(try store.putWebhook(hook("a", batchMax: 4), since: nil, audit: nil))
        #expect(try store.putWebhook(hook("b"), since: nil, audit: nil))
        #expect(try store.nextWebhookBatch("a", nowMs: 2000) == nil)  // nothing owed yet
        try commitAlerts(store, 10, to: ["a"])
        try commitAlerts(store, 2, to: ["a", "b"], from: 2000)

        let first = try #require(try store.nextWebhookBatch("a", nowMs: 2000))
        #expect(first.firstAlert == 1 && first.lastAlert == 4 && first.count == 4)
        #expect(first.messageId.hasPrefix("msg_") && first.messageId.count == 30)
        #expect(first.oldestMs == 1000)
        // Asked again (a retry, a restart): the same batch, the same id.
        let again = try #require(try db.store().nextWebhookBatch("a", nowMs: 3000))
        #expect(again.id == first.id && again.messageId == first.messageId)
        let alerts = try db.reader().webhookAlerts(first)
        #expect(alerts.map(\.id) == [1, 2, 3, 4])
        #expect(alerts[0].type == "geofence_enter" && alerts[1].type == "geofence_exit")

        try store.recordWebhookAttempt(first, .delivered(status: 200), nowMs: 3000)
        let second = try #require(try store.nextWebhookBatch("a", nowMs: 3000))
        #expect(second.firstAlert == 5 && second.lastAlert == 8)
        #expect(second.messageId != first.messageId)
        // "b" sees only what it is owed: the last two alerts.
        let b = try #require(try store.nextWebhookBatch("b", nowMs: 3000))
        #expect(b.firstAlert == 11 && b.lastAlert == 12 && b.count == 2)

        let statuses = try db.reader().webhookStatuses()
        let a = try #require(statuses.first { $0.subscription.name == "a" })
        #expect(a.delivered == 4 && a.pending == 8 && a.oldestPendingMs == 1000)
        #expect(a.lastDeliveryMs == 3000)
    }

    /// Alerts of one commit owed to different sets of subscriptions, runs
    /// of the same set between them: each subscription is owed exactly its own.
    @Test(arguments: BackendKind.allCases) func eachAlertIsOwedToItsOwnSubscriptions(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        #expect(try store.putWebhook(hook("a"), since: nil, audit: nil))
        #expect(try store.putWebhook(hook("b"), since: nil, audit: nil))
        let owed = [["a"], ["a", "b"], ["b"], ["a", "b"], ["a", "b"], ["a"], ["a"]]
        var b = WriteBatch()
        for (i, hooks) in owed.enumerated() {
            b.alerts.append(
                Alert(
                    type: .geofenceEnter, device: "truck-\(i)", time: 1000 + Int64(i),
                    fence: "depot", lat: 48, lon: 11))
            b.outbox.append((i..<(i + 1), hooks))
        }
        try store.commit(b, committedMs: 1000)
        for name in ["a", "b"] {
            let batch = try #require(try store.nextWebhookBatch(name, nowMs: 2000))
            let ids = try db.reader().webhookAlerts(batch).map(\.id)
            let want = owed.indices.filter { owed[$0].contains(name) }.map { Int64($0 + 1) }
            #expect(ids == want, "\(name)")
        }
    }

    /// Several subscriptions' steps in one call (the deliveries' way):
    /// each step's record lands before its next batch is formed, a step
    /// that asks no batch gets nil, and the answers come in the steps' order.
    @Test(arguments: BackendKind.allCases) func stepsRecordThenFormInTheirOrder(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        for name in ["a", "b", "c"] {
            _ = try store.putWebhook(hook(name, batchMax: 3), since: nil, audit: nil)
        }
        try commitAlerts(store, 7, to: ["a", "b", "c"])
        #expect(try store.webhookSteps([]).isEmpty)
        let first = try store.webhookSteps(
            ["a", "b", "c"].map { WebhookStep(webhook: $0, formNext: true, nowMs: 2000) })
        #expect(first.map { $0?.webhook } == ["a", "b", "c"])
        #expect(first.allSatisfy { $0?.firstAlert == 1 && $0?.lastAlert == 3 })
        let a = try #require(first[0])
        let b = try #require(first[1])
        let c = try #require(first[2])
        let second = try store.webhookSteps([
            WebhookStep(
                webhook: "a", attempt: .init(batch: a, outcome: .delivered(status: 204)),
                formNext: true, nowMs: 3000),
            WebhookStep(
                webhook: "b", attempt: .init(batch: b, outcome: .delivered(status: 204)),
                formNext: false, nowMs: 3000),
            WebhookStep(
                webhook: "c",
                attempt: .init(batch: c, outcome: .failed(error: "HTTP 503", retryAtMs: 9000)),
                formNext: true, nowMs: 3000),
            WebhookStep(webhook: "gone", formNext: true, nowMs: 3000),
        ])
        #expect(second.count == 4)
        #expect(second[0]?.firstAlert == 4 && second[0]?.lastAlert == 6)
        #expect(second[1] == nil)
        // c's attempt failed: its batch again, the same webhook-id, retry time kept.
        #expect(second[2]?.id == c.id && second[2]?.messageId == c.messageId)
        #expect(second[2]?.nextMs == 9000 && second[2]?.attempts == 1)
        #expect(second[3] == nil)
        // b's record landed: its next batch, asked alone, starts after it.
        #expect(try store.nextWebhookBatch("b", nowMs: 3000)?.firstAlert == 4)
        let statuses = Dictionary(
            uniqueKeysWithValues: try db.reader().webhookStatuses().map {
                ($0.subscription.name, $0)
            })
        #expect(statuses["a"]?.delivered == 3 && statuses["b"]?.delivered == 3)
        #expect(statuses["c"]?.delivered == 0 && statuses["c"]?.lastError == "HTTP 503")
    }

    @Test(arguments: BackendKind.allCases) func failuresWaitRefusalsSkipAfterThreeAndGoneDisables(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        _ = try store.putWebhook(hook("a", batchMax: 2), since: nil, audit: nil)
        try commitAlerts(store, 6, to: ["a"])

        var b = try #require(try store.nextWebhookBatch("a", nowMs: 2000))
        try store.recordWebhookAttempt(
            b, .failed(error: "HTTP 500", retryAtMs: 9000), nowMs: 2000)
        b = try #require(try store.nextWebhookBatch("a", nowMs: 2100))
        #expect(b.attempts == 1 && b.nextMs == 9000 && b.firstAlert == 1)

        // A poison batch: refused three times, then the next one goes.
        for k in 1...3 {
            try store.recordWebhookAttempt(
                b, .refused(status: 400, error: "HTTP 400", retryAtMs: 9000), nowMs: 3000)
            b = try #require(try store.nextWebhookBatch("a", nowMs: 3000))
            #expect(b.firstAlert == (k < 3 ? 1 : 3))
        }
        var status = try #require(try db.reader().webhookStatuses().first)
        #expect(status.refused == 2 && status.pending == 4 && status.lastError == "HTTP 400")

        // 410: disabled, nothing formed, the batch kept.
        try store.recordWebhookAttempt(b, .gone(error: "HTTP 410"), nowMs: 4000)
        #expect(try store.nextWebhookBatch("a", nowMs: 4000) == nil)
        status = try #require(try db.reader().webhookStatuses().first)
        #expect(status.subscription.disabled == "HTTP 410" && status.pending == 4)

        // fleetctl webhooks retry: enabled, the refused batch re-queued first.
        let audit = AuditRecord(timeMs: 5000, actor: "t", action: "webhook.retry", target: "a")
        #expect(try db.admin().retryWebhook("a", audit: audit) == 1)
        #expect(try db.admin().retryWebhook("nope", audit: audit) == nil)
        let requeued = try #require(try store.nextWebhookBatch("a", nowMs: 5000))
        #expect(requeued.firstAlert == 1 && requeued.refusals == 0)
    }

    @Test(arguments: BackendKind.allCases) func batchesOlderThanMaxAgeAreDeadLettered(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        _ = try store.putWebhook(hook("a", batchMax: 2, maxAgeH: 1), since: nil, audit: nil)
        try commitAlerts(store, 4, to: ["a"], at: 1000)
        try commitAlerts(store, 1, to: ["a"], at: 3_000_000, from: 2000)
        // An hour after the first commits: both of their batches die, the fresh one goes.
        let b = try #require(try store.nextWebhookBatch("a", nowMs: 1000 + 3_600_001))
        #expect(b.firstAlert == 5 && b.lastAlert == 5)
        let status = try #require(try db.reader().webhookStatuses().first)
        #expect(status.dead == 4 && status.pending == 1)
    }

    @Test(arguments: BackendKind.allCases) func sinceBackfillsMatchingAlertsAndDeleteDropsTheOutbox(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        try commitAlerts(store, 6, to: [])
        _ = try store.putWebhook(hook("exits", types: ["geofence_exit"]), since: 2, audit: nil)
        _ = try store.putWebhook(hook("none"), since: nil, audit: nil)
        let b = try #require(try store.nextWebhookBatch("exits", nowMs: 2000))
        let ids = try db.reader().webhookAlerts(b).map(\.id)
        #expect(ids == [4, 6])
        #expect(try store.nextWebhookBatch("none", nowMs: 2000) == nil)
        // Replacing keeps the outbox; deleting drops it.
        #expect(try store.putWebhook(hook("exits"), since: 0, audit: nil) == false)
        #expect(try store.nextWebhookBatch("exits", nowMs: 2000)?.id == b.id)
        #expect(try store.deleteWebhook("exits", audit: nil))
        #expect(try store.deleteWebhook("exits", audit: nil) == false)
        #expect(try store.nextWebhookBatch("exits", nowMs: 2000) == nil)
        #expect(try store.webhooks().map(\.name) == ["none"])
        // The next commit after a backfill owes its first alert to every subscription.
        _ = try store.putWebhook(hook("again"), since: 0, audit: nil)
        try commitAlerts(store, 1, to: ["none", "again"], from: 2000)
        #expect(try store.nextWebhookBatch("none", nowMs: 2000)?.firstAlert == 7)
    }

    @Test(arguments: BackendKind.allCases) func deliveredRowsArePrunedAfterRetention(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        _ = try store.putWebhook(hook("a", batchMax: 3), since: nil, audit: nil)
        try commitAlerts(store, 3, to: ["a"])
        try commitAlerts(store, 3, to: ["a"], at: 2000, from: 2000)
        let b = try #require(try store.nextWebhookBatch("a", nowMs: 2000))
        try store.recordWebhookAttempt(b, .delivered(status: 204), nowMs: 2000)
        // By the alerts' commit time (1000), and only what every
        // subscription is done with (the first commit's three alerts).
        #expect(try store.pruneWebhooks(before: 1000, maxRows: 100) == 0)
        #expect(try store.pruneWebhooks(before: 3000, maxRows: 100) > 0)
        #expect(try store.pruneWebhooks(before: 3000, maxRows: 100) == 0)
        let status = try #require(try db.reader().webhookStatuses().first)
        #expect(status.delivered == 3 && status.pending == 3)
        let next = try #require(try store.nextWebhookBatch("a", nowMs: 3000))
        #expect(try db.reader().webhookAlerts(next).map(\.id) == [4, 5, 6])
    }

    /// Batches of two cut across runs of alerts owed to different sets of
    /// subscriptions, and across commits: delivered one after another,
    /// each subscription gets exactly its own alerts, each once, in order.
    @Test(arguments: BackendKind.allCases) func smallBatchesCutAcrossRunsOweEachAlertOnce(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        for name in ["a", "b", "c"] {
            #expect(try store.putWebhook(hook(name, batchMax: 2), since: nil, audit: nil))
        }
        let owed: [[String]] = [
            ["a", "b"], ["a", "b"], ["a", "b"], ["b"], ["a", "b", "c"], ["a"], [], ["a"], ["c"],
            ["c"], ["a", "b", "c"],
        ]
        // Two commits: the second starts in the middle of the list.
        for (part, range) in [(0, 0..<5), (1, 5..<owed.count)] {
            var b = WriteBatch()
            for i in range {
                b.alerts.append(
                    Alert(
                        type: .geofenceEnter, device: "truck-\(i)", time: 1000 + Int64(i),
                        fence: "depot", lat: 48, lon: 11))
                let k = i - range.lowerBound
                if !owed[i].isEmpty { b.outbox.append((k..<(k + 1), owed[i])) }
            }
            try store.commit(b, committedMs: 1000 + Int64(part))
        }
        let statuses = try db.reader().webhookStatuses()
        for name in ["a", "b", "c"] {
            let want = owed.indices.filter { owed[$0].contains(name) }.map { Int64($0 + 1) }
            #expect(statuses.first { $0.subscription.name == name }?.pending == want.count)
            let batches = try deliverAll(name, store, db.reader())
            #expect(batches.allSatisfy { $0.count <= 2 }, "\(name)")
            #expect(batches.flatMap { $0 } == want, "\(name)")
        }
    }

    /// A storm's commit: five thousand alerts owed to two subscriptions
    /// (more than SQLite keeps in one run), in batches of five hundred,
    /// each alert once and in order; the status counts them all before the
    /// first batch.
    @Test(arguments: BackendKind.allCases) func aStormsCommitGoesOutWhole(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let store = try db.store()
        for name in ["a", "b"] {
            #expect(try store.putWebhook(hook(name, batchMax: 500), since: nil, audit: nil))
        }
        try commitAlerts(store, 5000, to: ["a", "b"])
        #expect(try db.reader().webhookStatuses().map(\.pending) == [5000, 5000])
        let batches = try deliverAll("a", store, db.reader())
        #expect(batches.map(\.count) == Array(repeating: 500, count: 10))
        #expect(batches.flatMap { $0 } == Array(1...5000))
        #expect(try db.reader().webhookStatuses().map(\.pending) == [0, 5000])
    }
}
