import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /api/v1/events`: Server-Sent Events. `alert` events (id = the
/// alert's id) for every committed alert, `position` events (a device's
/// newest committed position, at most once a second; `positions=off`
/// skips them; `positions=batch`, for a client of the whole fleet, sends
/// each round's positions as one `positions` event, a JSON array;
/// `positions=compact` as one `positions_compact` event, rows of a few
/// fields, `CompactPositions`); `alerts=compact`, for a client of every
/// alert, sends each round's alerts as one `alerts_compact` event
/// (`CompactAlerts`, its SSE id the last alert's), `alerts=off` none;
/// filters `device`, `type`, `fence`. A caller limited to groups gets the
/// events of its groups' vehicles only (positions one event each, never
/// batched); a driver its vehicle's positions only. With `Last-Event-ID`
/// (or `last_event_id=`) the alerts missed since that id come first, from
/// the database, then the live ones, none twice. Accepts the session
/// cookie (browsers' EventSource cannot send Authorization) or a token.
/// The credentials are checked again, from the store, at most every
/// `recheckS` seconds while the stream is open (each event or keep-alive
/// is a chance): a revoked token, an ended session or a removed user
/// closes the stream within `recheckS` + `http.keepalive_s`.
enum EventRoutes {
    /// Seconds between two checks of an open stream's credentials.
    static let recheckS = 10.0
}

extension EventRoutes {
    static func make(_ d: RouteDeps) -> [Route] {
        [
            Route(
                .get, "/api/v1/events", role: .driver,
                parameters: ["device", "type", "fence", "positions", "alerts", "last_event_id"]
            ) { r in
                var filter = EventFilter()
                if let device = r.query["device"] { filter.device = try r.device(device) }
                filter.type = try r.alertType()
                filter.fence = r.query["fence"]
                filter.scope = r.caller.scope
                filter.alerts = r.caller.role != .driver
                if case .groups = filter.scope, d.hub.groups.stale {
                    let all = try await d.read { try $0.deviceGroups() }
                    d.hub.groups.load(all)
                }
                switch r.query["positions"] {
                case nil, "on"?: filter.positions = true
                case "off"?: filter.positions = false
                case "batch"?: (filter.positions, filter.batch) = (true, true)
                case "compact"?: (filter.positions, filter.compact) = (true, true)
                case let v?:
                    throw APIError.badParameter(
                        "positions", "\"\(v.prefix(20))\" is not on, off, batch or compact")
                }
                switch r.query["alerts"] {
                case nil, "on"?: break
                case "off"?: filter.alerts = false
                case "compact"?: filter.compactAlerts = true
                case let v?:
                    throw APIError.badParameter(
                        "alerts", "\"\(v.prefix(20))\" is not on, off or compact")
                }
                var after: Int64?
                if let text = r.header(HTTPField.Name("Last-Event-ID")!)
                    ?? r.query["last_event_id"], !text.isEmpty
                {
                    guard let id = Int64(text), id >= 0 else {
                        throw APIError.badParameter(
                            "Last-Event-ID", "\"\(text.prefix(20))\" is not an alert id")
                    }
                    after = id
                }
                // Subscribed before the catch-up read: an alert committed meanwhile is in one or both.
                let subscriber: EventHub.Subscriber
                let events: AsyncStream<LiveChunk>
                switch d.hub.subscribe(filter, owner: r.caller.actor) {
                case .success(let s): (subscriber, events) = s
                case .failure(let refusal):
                    let detail =
                        refusal == .full
                        ? "\(d.hub.maxStreams) event streams are open (http.max_streams); retry later"
                        : "\(r.caller.actor) holds \(d.hub.maxPerOwner) event streams already"
                            + " (http.max_streams_per_user); close one or retry later"
                    var e = APIError(.serviceUnavailable, "too many streams", detail)
                    e.headers[.retryAfter] = "10"
                    throw e
                }
                var h = HTTPFields()
                h[.contentType] = "text/event-stream"
                h[.cacheControl] = "no-store"
                h[HTTPField.Name("X-Accel-Buffering")!] = "no"
                var catchUpFilter = AlertFilter(
                    device: filter.device, type: filter.type, fence: filter.fence)
                catchUpFilter.scope = filter.scope
                let alertFilter = catchUpFilter
                let catchUp = filter.alerts
                let stream = events
                let resume = after
                let (bearer, cookie) = (APIRouter.bearer(r.request), APIRouter.cookie(r.request))
                return Response(
                    status: .ok, headers: h,
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(string: "retry: 2000\n: connected\n\n"))
                        var last = resume ?? 0
                        if let resume, catchUp {
                            var from = resume
                            while true {
                                let start = from
                                let page = try await d.read {
                                    try $0.alerts(afterId: start, limit: 1000, filter: alertFilter)
                                }
                                for a in page {
                                    try await writer.write(
                                        ByteBuffer(
                                            string:
                                                "id: \(a.id)\nevent: alert\ndata: \(a.jsonLine)\n\n"
                                        ))
                                }
                                guard let end = page.last?.id else { break }
                                from = end
                                last = end
                                if page.count < 1000 { break }
                            }
                        }
                        var checked = Date()
                        for await chunk in stream {
                            let count = chunk.weight
                            if Date().timeIntervalSince(checked) >= Self.recheckS {
                                checked = Date()
                                guard await d.auth.stillValid(bearer: bearer, cookie: cookie)
                                else {
                                    subscriber.queued.subtract(count, ordering: .relaxed)
                                    break
                                }
                            }
                            // After a catch-up, the first chunks may repeat alerts: skipped.
                            if last > 0, chunk.repeats(alert: last) {
                                let rest = chunk.after(alert: last)
                                for part in rest.parts { try await writer.write(part) }
                            } else {
                                for part in chunk.parts { try await writer.write(part) }
                            }
                            subscriber.queued.subtract(count, ordering: .relaxed)
                        }
                        try await writer.finish(nil)
                    })
            }
        ]
    }
}
