import FleetAuth
import FleetJSON
import FleetModel
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird

/// Links that show one vehicle without a login.
///
/// The API (operator): `POST /api/v1/devices/{id}/shares` with
/// `{"expires_in_s": N}` (60 s to `http.share_max_s`; a day, or the
/// maximum when shorter, by default) answers 201 with the link's record,
/// its `token` and its `url` (`/share/TOKEN`), the only time the token is
/// shown (it is stored as its SHA-256); `GET …/shares` lists a device's
/// links, newest first; `DELETE …/shares/{share}` revokes one, named by its
/// `id` or by its token. Each change is audited (`share.create`,
/// `share.revoke`).
///
/// Without a login: `GET /share/TOKEN` is the page (a map); `GET
/// /share/TOKEN/track?after=T` its data: the vehicle's id and name, when
/// the link expires, and its positions since the link was made (after `T`
/// when given), oldest first, at most 5 000 a call. A token that is
/// malformed, unknown, expired or revoked is the same 404, which says
/// nothing of which; nothing else of the fleet is reachable with it.
enum ShareRoutes {
    static let tokenPrefix = "flsh_"

    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(.post, "/api/v1/devices/{id}/shares", role: .operator) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                try await d.admit(r, id)
                let body = try await r.jsonBody(limit: 4096, timeoutS: d.settings.bodyTimeoutS)
                let seconds = try expiresIn(body, max: d.settings.shareMaxS)
                let token = TokenSecret.make(prefix: tokenPrefix)
                let now = DeviceRoutes.now()
                let share = ShareRecord(
                    device: id, tokenHash: TokenSecret.hash(token), createdMs: now,
                    expiresMs: now + Int64(seconds) * 1000, createdBy: r.caller.actor)
                let audit = AuditRecord(
                    timeMs: now, actor: r.caller.actor, action: "share.create", target: id,
                    detail: "expires in \(seconds) s")
                let stored = try await d.backend.change { store throws(StoreError) in
                    try store.addShare(share, audit: audit)
                }
                guard let stored else { throw APIError.notFound("no device \(id)") }
                var line = RecordCoding.line(stored)
                line.removeLast()
                line +=
                    ",\"token\":\(JSONValue.quote(token)),\"url\":\(JSONValue.quote("/share/" + token))}"
                return Replies.json(line, status: .created)
            },
            Route(.get, "/api/v1/devices/{id}/shares", role: .operator) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                // A device the caller does not see has no links, as one that does not exist.
                guard try await d.sees(r, id) else { return Replies.page([], next: nil) }
                let shares = try await d.read { try $0.shares(device: id) }
                return Replies.page(shares.map(RecordCoding.line), next: nil)
            },
            Route(.delete, "/api/v1/devices/{id}/shares/{share}", role: .operator) { r in
                let id = try r.device(r.path["id"]!, name: "id")
                let named = r.path["share"]!
                try await d.admit(r, id, otherwise: "device \(id) has no such link")
                var shareId = Int64(named)
                if shareId == nil, isWellFormed(named) {
                    shareId = try await d.read { try $0.share(tokenHash: TokenSecret.hash(named)) }?
                        .id
                }
                guard let shareId else { throw APIError.notFound("device \(id) has no such link") }
                let now = DeviceRoutes.now()
                let audit = AuditRecord(
                    timeMs: now, actor: r.caller.actor, action: "share.revoke", target: id,
                    detail: "link \(shareId)")
                let revoked = try await d.backend.change { store throws(StoreError) in
                    try store.revokeShare(device: id, id: shareId, atMs: now, audit: audit)
                }
                guard revoked else { throw APIError.notFound("device \(id) has no such link") }
                guard
                    let after = try await d.read({ try $0.shares(device: id) }).first(where: {
                        $0.id == shareId
                    })
                else { throw APIError.notFound("device \(id) has no such link") }
                return Replies.record(after)
            },
        ]
    }

    /// The page and its data, without a login (not part of the API's
    /// OpenAPI document, like the console).
    static func publicRoutes(_ d: RouteDeps) -> [Route] {
        let page = ShareFiles.page(settings: d.settings)
        let csp = ConsoleRoutes.contentSecurityPolicy(d.settings)
        return [
            Route(.get, "/share/{token}", role: nil) { r in
                guard isWellFormed(r.path["token"]!) else { throw gone }
                return ConsoleRoutes.file(page, "text/html; charset=utf-8", csp: csp)
            },
            Route(.get, "/share/files/share.js", role: nil) { _ in
                ConsoleRoutes.file(ShareFiles.script, "text/javascript; charset=utf-8", csp: csp)
            },
            Route(.get, "/share/files/share.css", role: nil) { _ in
                ConsoleRoutes.file(ShareFiles.style, "text/css; charset=utf-8", csp: csp)
            },
            Route(.get, "/share/{token}/track", role: nil, parameters: ["after"]) { r in
                let token = r.path["token"]!
                guard isWellFormed(token) else { throw gone }
                let after = try r.time("after")
                let now = DeviceRoutes.now()
                let hash = TokenSecret.hash(token)
                let found = try await d.read { reader in
                    try lookup(reader, tokenHash: hash, after: after, nowMs: now)
                }
                guard let found else { throw gone }
                return Replies.json(
                    track(found.share, name: found.name, positions: found.positions))
            },
        ]
    }

    /// A working link and what its page is shown.
    struct Found: Sendable {
        var share: ShareRecord
        var name: String?
        var positions: [PositionRecord]
    }

    /// The link whose token hashes to `tokenHash` if it works at `nowMs`,
    /// with its vehicle's name and its positions since the link was made
    /// (after `after` when given), at most 5 000; nil otherwise.
    static func lookup(
        _ reader: any StoreReading, tokenHash: String, after: Int64?, nowMs: Int64
    ) throws(StoreError) -> Found? {
        guard let share = try reader.share(tokenHash: tokenHash), share.isActive(atMs: nowMs)
        else { return nil }
        let from = max(share.createdMs, after.map { $0 + 1 } ?? share.createdMs)
        let positions = try reader.positions(
            device: share.device, fromMs: from, toMs: share.expiresMs, limit: 5000)
        return Found(
            share: share, name: try reader.device(share.device)?.name, positions: positions)
    }

    /// The one answer for a link that does not work, whatever the reason.
    static var gone: APIError { APIError.notFound("this link does not exist or has expired") }

    /// A token's shape: the prefix and 43 URL-safe base64 characters.
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == tokenPrefix.utf8.count + 43 && token.hasPrefix(tokenPrefix)
            && token.utf8.dropFirst(tokenPrefix.utf8.count).allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A)
                    || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// `{"expires_in_s": N}` (N an integer, 60 … `max`; absent: a day, at
    /// most `max`): 422 lists every problem.
    static func expiresIn(_ body: [UInt8], max: Int) throws(APIError) -> Int {
        let members = try Replies.object(body, invalid: "invalid link")
        var problems: [String] = []
        var seconds = min(86_400, max)
        for (k, v) in members {
            guard k == "expires_in_s" else {
                problems.append("\(k.prefix(40)): unknown field (known: expires_in_s)")
                continue
            }
            guard case .number(let n) = v, n == n.rounded(), n >= 60, n <= Double(max) else {
                problems.append(
                    "expires_in_s: must be a whole number of seconds from 60 to \(max) (http.share_max_s)"
                )
                continue
            }
            seconds = Int(n)
        }
        guard problems.isEmpty else {
            throw APIError(
                .unprocessableContent, "invalid link", problems.joined(separator: "; "),
                problems: problems)
        }
        return seconds
    }

    /// The track's JSON: `device`, `name`, `expires`, `positions` (`time`,
    /// `lat`, `lon`, `speed_kmh`, `course`), oldest first.
    static func track(_ share: ShareRecord, name: String?, positions: [PositionRecord]) -> String {
        var out =
            "{\"device\":\(JSONValue.quote(share.device)),\"name\":\(name.map(JSONValue.quote) ?? "null"),\"expires\":\(JSONValue.quote(RFC3339.format(millis: share.expiresMs))),\"positions\":["
        for (i, p) in positions.enumerated() {
            if i > 0 { out += "," }
            out +=
                "{\"time\":\(JSONValue.quote(RFC3339.format(millis: p.fix.time))),\"lat\":\(JSONValue.number(p.fix.lat).jsonText),\"lon\":\(JSONValue.number(p.fix.lon).jsonText),\"speed_kmh\":\(p.fix.speedKmh.map { JSONValue.number($0).jsonText } ?? "null"),\"course\":\(p.fix.course.map { JSONValue.number($0).jsonText } ?? "null")}"
        }
        return out + "]}"
    }
}
