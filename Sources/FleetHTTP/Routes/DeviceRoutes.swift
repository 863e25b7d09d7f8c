import FleetJSON
import FleetModel
import FleetStorage
import FleetTracking
import Foundation
import Hummingbird

/// `/api/v1/devices`: list (paged by id), one (with its newest position
/// and the fences it is inside, by its enter/exit alerts), register or update (`PUT`,
/// operator), unregister (`DELETE`, operator; positions, alerts and trips stay).
/// A caller limited to groups (or a driver) lists and reaches only the
/// devices it sees; any other is answered as one that does not exist. A
/// caller limited to groups edits only devices it sees and keeps them in
/// its groups; it registers no new device.
enum DeviceRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.get, "/api/v1/devices", role: .driver, parameters: ["limit", "after"]) { r in
                let limit = try r.int("limit", default: 1000, range: 1...10_000)
                let after = try r.query["after"].map { try r.device($0, name: "after") } ?? ""
                let scope = r.caller.scope
                let page = try await d.read {
                    try $0.devices(after: after, limit: limit, scope: scope)
                }
                let next =
                    page.count == limit
                    ? Replies.link(
                        "/api/v1/devices", ["limit": String(limit), "after": page.last!.ident])
                    : nil
                return Replies.page(page.map(RecordCoding.line), next: next)
            },
            Route(.get, "/api/v1/devices/{id}", role: .driver) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                let scope = r.caller.scope
                let found = try await d.read {
                    r -> (DeviceRecord, [PositionRecord], [String], DeviceState?)? in
                    guard try RouteDeps.sees(scope, id, r), let device = try r.device(id) else {
                        return nil
                    }
                    return (
                        device,
                        try r.positions(device: id, fromMs: device.lastFix, toMs: nil, limit: 1),
                        try r.fencesInside(device: id, beforeMs: nil)[id] ?? [],
                        try r.deviceStates(device: id)[id]
                    )
                }
                guard let (device, last, fences, state) = found else {
                    throw APIError.notFound("no device \(id)")
                }
                var line = RecordCoding.line(device)
                line.removeLast()
                line += ",\"last_position\":" + (last.first?.jsonLine ?? "null")
                line += ",\"fences\":[" + fences.map(JSONValue.quote).joined(separator: ",") + "]"
                // What the device says of itself, as of the last checkpoint.
                line += ",\"ignition\":" + (state?.ignition.map { $0 ? "true" : "false" } ?? "null")
                line += ",\"driver\":" + (state?.driver.map(JSONValue.quote) ?? "null")
                let idle = state?.idle.flatMap { $0.announced ? $0.since : nil }
                line +=
                    ",\"idle_since\":"
                    + (idle.map { JSONValue.quote(RFC3339.format(millis: $0)) } ?? "null")
                line += "}"
                return Replies.json(line)
            },
            Route(.put, "/api/v1/devices/{id}", role: .operator) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                try await d.admit(r, id)
                let body = try await r.jsonBody(limit: 64 * 1024, timeoutS: d.settings.bodyTimeoutS)
                let reg = try registration(id, body, scope: r.caller.scope)
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "device.put", target: id,
                    detail: String(decoding: body.prefix(500), as: UTF8.self))
                try await d.backend.change { store throws(StoreError) in
                    try store.register(reg, audit: audit)
                }
                guard let device = try await d.read({ try $0.device(id) }) else {
                    throw APIError.notFound("no device \(id)")
                }
                d.hub.groups.set(id, group: device.group)
                return Replies.record(device)
            },
            Route(.delete, "/api/v1/devices/{id}", role: .operator) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                try await d.admit(r, id, otherwise: "device \(id) is not registered")
                let audit = AuditRecord(
                    timeMs: now(), actor: r.caller.actor, action: "device.delete", target: id)
                let removed = try await d.backend.change { store throws(StoreError) in
                    try store.unregister(id, audit: audit)
                }
                guard removed else { throw APIError.notFound("device \(id) is not registered") }
                d.hub.groups.set(id, group: nil)
                return Replies.json("{\"device\":\(JSONValue.quote(id)),\"registered\":false}")
            },
        ]
    }

    /// `{"name","plate","vin","group"}` (each a string or null; absent
    /// name, plate or vin = null; absent group = unchanged, null = none): 422
    /// lists every problem. A caller limited to groups must leave the
    /// device in one of them.
    static func registration(_ id: String, _ body: [UInt8], scope: DeviceScope = .all) throws
        -> DeviceRegistration
    {
        let members = try Replies.object(body, invalid: "invalid device")
        var problems: [String] = []
        var values: [String: String] = [:]
        var group: String?
        for (k, v) in members {
            guard ["name", "plate", "vin", "group"].contains(k) else {
                problems.append("\(k.prefix(40)): unknown field (known: name, plate, vin, group)")
                continue
            }
            if k == "group" {
                switch v {
                case .null: group = ""
                case .string(let s):
                    if let why = GroupName.problem(s) { problems.append("group: \(why)") }
                    group = s
                default: problems.append("group: must be a string or null, found \(v.kindName)")
                }
                continue
            }
            switch v {
            case .null: break
            // Counted in code points, as JSON Schema's maxLength counts.
            case .string(let s) where s.unicodeScalars.count <= 200: values[k] = s
            case .string: problems.append("\(k): longer than 200 characters")
            default: problems.append("\(k): must be a string or null, found \(v.kindName)")
            }
        }
        if case .groups(let mine) = scope, let group, !mine.contains(group) {
            problems.append(
                "group: a user limited to groups keeps the vehicle in one of them ("
                    + mine.joined(separator: ", ") + ")")
        }
        guard problems.isEmpty else {
            throw APIError(
                .unprocessableContent, "invalid device", problems.joined(separator: "; "),
                problems: problems)
        }
        return DeviceRegistration(
            ident: id, name: values["name"], plate: values["plate"], vin: values["vin"],
            group: group, replace: true)
    }

    static func now() -> Int64 { WallClock.system.nowMs() }
}
