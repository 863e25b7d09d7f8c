import FleetJSON
import FleetModel
import FleetReports
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird

/// A vehicle's maintenance (`[[maintenance]]`).
///
/// `GET /api/v1/devices/{id}/maintenance` (viewer): `plans`, where the
/// vehicle stands under each plan that applies to it (`MaintenanceStatus`:
/// due or not, by what, what is left), and `records`, its services done,
/// newest first (at most 100). `POST …/maintenance` (operator) with
/// `{"plan": NAME, "note": TEXT, "done_at": RFC3339}` (`note` and
/// `done_at` optional; `done_at` from a year ago to now, the odometer then
/// taken from the trips) records a service done (`maintenance_done`),
/// audited as `maintenance.done`; the plan counts from it.
enum MaintenanceRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/devices/{id}/maintenance", role: .viewer) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                try await d.admit(r, id)
                let plans = d.settings.maintenancePlans
                let now = DeviceRoutes.now()
                let view = try await d.read { reader in
                    try Self.view(reader, device: id, plans: plans, nowMs: now)
                }
                guard let view else { throw APIError.notFound("no device \(id)") }
                let (statuses, records) = (view.statuses, view.records)
                let body =
                    "{\"plans\":[" + statuses.map(RecordCoding.line).joined(separator: ",")
                    + "],\"records\":[" + records.map(RecordCoding.line).joined(separator: ",")
                    + "]}"
                return Replies.json(body)
            },
            Route(.post, "/api/v1/devices/{id}/maintenance", role: .operator) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                try await d.admit(r, id)
                let body = try await r.jsonBody(limit: 4096, timeoutS: d.settings.bodyTimeoutS)
                let now = DeviceRoutes.now()
                let asked = try done(
                    body, plans: d.settings.maintenancePlans.map(\.name), nowMs: now)
                let found = try await d.read { reader -> (MaintenanceRecord, String?)? in
                    guard let device = try reader.device(id) else { return nil }
                    let at = asked.atMs ?? now
                    return (
                        MaintenanceRecord(
                            plan: asked.plan, device: id, doneMs: at,
                            odometerM: try MaintenanceInputs.odometer(
                                reader, device: device, at: at),
                            by: r.caller.actor, note: asked.note), device.group
                    )
                }
                guard let (record, group) = found else {
                    throw APIError.notFound("no device \(id)")
                }
                guard
                    d.settings.maintenancePlans.first(where: { $0.name == asked.plan })?
                        .applies(to: id, group: group) == true
                else {
                    throw APIError(
                        .unprocessableContent, "invalid service",
                        "plan: \(asked.plan) does not apply to \(id)",
                        problems: ["plan: \(asked.plan) does not apply to \(id)"])
                }
                let audit = AuditRecord(
                    timeMs: now, actor: r.caller.actor, action: "maintenance.done", target: id,
                    detail: asked.plan)
                try await d.backend.change { store throws(StoreError) in
                    try store.addMaintenance([record], audit: audit)
                }
                let stored = try await d.read { reader in
                    try reader.maintenance(device: id, latestOnly: false)
                }.first { $0.plan == record.plan && $0.doneMs == record.doneMs }
                return Replies.json(RecordCoding.line(stored ?? record), status: .created)
            },
        ]
    }

    /// What the GET answers: nil when the device is unknown.
    struct View: Sendable {
        var statuses: [MaintenanceStatus]
        var records: [MaintenanceRecord]
    }

    static func view(
        _ reader: any StoreReading, device id: String, plans: [MaintenancePlan], nowMs: Int64
    ) throws(StoreError) -> View? {
        guard let device = try reader.device(id) else { return nil }
        return View(
            statuses: try MaintenanceInputs.statuses(
                plans, device: device, reader: reader, nowMs: nowMs),
            records: Array(try reader.maintenance(device: id, latestOnly: false).prefix(100)))
    }

    /// The body of a service done: `plan` (one of `plans`), `note` (at most
    /// 500 characters), `done_at` (RFC 3339, within the last year, not
    /// later than `nowMs`). Throws 422 naming every problem.
    static func done(_ body: [UInt8], plans: [String], nowMs: Int64) throws(APIError)
        -> (plan: String, note: String?, atMs: Int64?)
    {
        let members = try Replies.object(body, invalid: "invalid service")
        var problems: [String] = []
        var plan: String?
        var note: String?
        var at: Int64?
        for (k, v) in members {
            switch (k, v) {
            case ("plan", .string(let s)):
                if plans.contains(s) {
                    plan = s
                } else {
                    problems.append(
                        "plan: \"\(s.prefix(64))\" is not a plan (\(plans.isEmpty ? "none in [[maintenance]]" : plans.joined(separator: ", ")))"
                    )
                }
            case ("note", .string(let s)):
                if s.count <= 500 {
                    note = s
                } else {
                    problems.append("note: at most 500 characters")
                }
            case ("done_at", .string(let s)):
                if let ms = RFC3339.parse(Array(s.utf8)), ms <= nowMs,
                    ms >= nowMs - 366 * 86_400_000
                {
                    at = ms
                } else {
                    problems.append(
                        "done_at: an RFC 3339 time within the last year, not in the future")
                }
            case ("plan", _), ("note", _), ("done_at", _):
                problems.append("\(k): must be a string")
            default:
                problems.append("\(k.prefix(40)): unknown field (known: plan, note, done_at)")
            }
        }
        if plan == nil, !problems.contains(where: { $0.hasPrefix("plan:") }) {
            problems.append("plan: is needed")
        }
        guard problems.isEmpty, let plan else {
            throw APIError(
                .unprocessableContent, "invalid service", problems.joined(separator: "; "),
                problems: problems)
        }
        return (plan, note, at)
    }
}
