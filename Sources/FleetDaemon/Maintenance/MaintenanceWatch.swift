import FleetHTTP
import FleetModel
import FleetReports
import FleetStorage
import FleetTracking
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Checks the maintenance plans (`[[maintenance]]`) every `intervalS`: for
/// each vehicle a plan applies to, where it stands since its latest service
/// (`MaintenanceInputs`); a vehicle that has come due gets one
/// `maintenance_due` alert per service period, committed like any alert
/// (through the commit stage, so webhooks, mail, the stream and the alert
/// log see it). A vehicle a plan meets for the first time gets its start
/// record (`by` = `plan`): it counts from then.
///
/// Whether a period's alert was raised is read from the alerts themselves
/// (a `maintenance_due` of the plan since the latest service), so a restart
/// raises none twice.
final class MaintenanceWatch: Service, Sendable {
    private let plans: [MaintenancePlan]
    private let reader: any StoreReading
    private let stage: CommitStage
    private let handoff: CommitHandoff
    private let logger: Logger
    private let intervalS: Double
    /// (plan, device) → the service id whose period was already alerted.
    private let alerted = Mutex<[String: Int64]>([:])

    init(
        plans: [MaintenancePlan], reader: any StoreReading, stage: CommitStage,
        handoff: CommitHandoff, logger: Logger, intervalS: Double = 60
    ) {
        self.plans = plans
        self.reader = reader
        self.stage = stage
        self.handoff = handoff
        self.logger = logger
        self.intervalS = intervalS
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            try? await Task.sleep(for: .seconds(2))
            var failing = false
            while !Task.isCancelled {
                do {
                    try await self.check()
                    if failing { self.logger.notice("maintenance: checking again") }
                    failing = false
                } catch {
                    if !failing { self.logger.error("maintenance: \(error)") }
                    failing = true
                }
                try? await Task.sleep(for: .seconds(self.intervalS))
            }
        }
    }

    /// One round over every vehicle and plan.
    func check() async throws {
        let now = WallClock.system.nowMs()
        let plans = self.plans
        let reader = self.reader
        let known = alerted.withLock { $0 }
        let round = try await Blocking.run { () throws(StoreError) in
            try Self.round(plans, reader: reader, alerted: known, nowMs: now)
        }
        if !round.starts.isEmpty {
            let starts = round.starts
            try await stage.perform { store throws(StoreError) in
                try store.addMaintenance(starts, audit: nil)
            }
            logger.info("maintenance: \(starts.count) plan starts recorded")
        }
        alerted.withLock { a in
            for (k, v) in round.alerted { a[k] = v }
        }
        guard !round.alerts.isEmpty else { return }
        var batch = WriteBatch()
        batch.alerts = round.alerts
        let pending = PendingCommit(batch: batch, items: [])
        let handoff = self.handoff
        await Blocking.run { handoff.put(pending) }
        logger.notice("maintenance: \(round.alerts.count) vehicles came due")
    }

    struct Round: Sendable {
        var starts: [MaintenanceRecord] = []
        var alerts: [Alert] = []
        var alerted: [String: Int64] = [:]
    }

    /// What one round finds: plan starts to record, alerts to raise, and
    /// the periods now known to be alerted. Blocking (reads).
    static func round(
        _ plans: [MaintenancePlan], reader: any StoreReading, alerted: [String: Int64],
        nowMs: Int64
    ) throws(StoreError) -> Round {
        var r = Round()
        var latest: [String: MaintenanceRecord] = [:]
        for m in try reader.maintenance(device: nil, latestOnly: true) {
            latest[m.plan + "\u{0}" + m.device] = m
        }
        for device in try reader.devices() where device.lastFix != nil {
            for plan in plans where plan.applies(to: device.ident, group: device.group) {
                let key = plan.name + "\u{0}" + device.ident
                guard let last = latest[key] else {
                    r.starts.append(
                        MaintenanceRecord(
                            plan: plan.name, device: device.ident, doneMs: nowMs,
                            odometerM: device.odometerM, by: "plan"))
                    continue
                }
                if alerted[key] == last.id { continue }
                let status = try MaintenanceInputs.status(
                    plan, last: last, odometerM: device.odometerM, reader: reader, nowMs: nowMs)
                guard status.due else { continue }
                // Raised before (another run)? Read from the alerts.
                let earlier = try reader.alerts(
                    afterId: 0, limit: 1000,
                    filter: AlertFilter(
                        device: device.ident, type: AlertType.maintenanceDue.rawValue,
                        sinceMs: last.doneMs))
                r.alerted[key] = last.id
                if earlier.contains(where: { Self.plan(of: $0) == plan.name }) { continue }
                let at = try reader.positions(device: device.ident, limit: 1).first
                r.alerts.append(
                    Alert(
                        type: .maintenanceDue, device: device.ident, time: nowMs, fence: nil,
                        lat: at?.fix.lat ?? 0, lon: at?.fix.lon ?? 0,
                        details: Self.details(status)))
            }
        }
        return r
    }

    static func details(_ s: MaintenanceStatus) -> [AlertDetail] {
        var d = [
            AlertDetail("plan", s.plan), AlertDetail("due_by", s.dueBy.joined(separator: ",")),
            AlertDetail("km_since", (s.kmSince * 10).rounded() / 10),
            AlertDetail("days_since", (s.daysSince * 10).rounded() / 10),
        ]
        if let h = s.engineHSince {
            d.append(AlertDetail("engine_h_since", (h * 10).rounded() / 10))
        }
        return d
    }

    /// The plan a `maintenance_due` alert names (`details.plan`).
    static func plan(of a: AlertRecord) -> String? { a.detailText("plan") }
}
