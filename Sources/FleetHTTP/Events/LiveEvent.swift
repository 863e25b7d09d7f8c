import FleetStorage
import NIOCore

/// One event for the live stream, formatted once for every client.
struct LiveEvent: Sendable {
    enum Kind: Sendable {
        case alert, compactAlerts, position, positions, compactPositions, command, ping
        /// One of the three forms of positions.
        var isPosition: Bool {
            self == .position || self == .positions || self == .compactPositions
        }
        /// One of the two forms of alerts.
        var isAlert: Bool { self == .alert || self == .compactAlerts }
    }
    let kind: Kind
    /// The alert id (the SSE `id:`; a batch's last), 0 for positions and pings.
    let id: Int64
    /// A batch of alerts' first id (else `id`).
    let firstId: Int64
    /// A batch's alerts (`compactAlerts`), to trim it after a catch-up.
    let alertBatch: CompactAlerts.AlertBatch?
    let device: String
    let type: String?
    let fence: String?
    /// The event as SSE text
    /// (https://html.spec.whatwg.org/multipage/server-sent-events.html).
    let bytes: ByteBuffer
    /// What it counts for against a client's `http.stream_buffer`: a
    /// batch of positions (`positions`, `positions_compact`) counts each one.
    let weight: Int

    init(
        kind: Kind, id: Int64, device: String, type: String?, fence: String?, json: String,
        weight: Int = 1
    ) {
        self.kind = kind
        self.weight = weight
        self.id = id
        firstId = id
        alertBatch = nil
        self.device = device
        self.type = type
        self.fence = fence
        let text =
            switch kind {
            case .alert: "id: \(id)\nevent: alert\ndata: \(json)\n\n"
            case .compactAlerts: "id: \(id)\nevent: alerts_compact\ndata: \(json)\n\n"
            case .position: "event: position\ndata: \(json)\n\n"
            case .positions: "event: positions\ndata: \(json)\n\n"
            case .compactPositions: "event: positions_compact\ndata: \(json)\n\n"
            case .command: "event: command\ndata: \(json)\n\n"
            case .ping: ": keep-alive\n\n"
            }
        bytes = ByteBuffer(string: text)
    }

    /// An event whose SSE text is written already (`bytes`).
    init(kind: Kind, bytes: ByteBuffer, weight: Int) {
        self.kind = kind
        self.weight = weight
        id = 0
        firstId = 0
        alertBatch = nil
        device = ""
        type = nil
        fence = nil
        self.bytes = bytes
    }

    /// A batch of alerts (ids `firstId` through `lastId`) written already,
    /// weighing one per row (one if it has none).
    init(alertBatch: CompactAlerts.AlertBatch, firstId: Int64, lastId: Int64, bytes: ByteBuffer) {
        kind = .compactAlerts
        weight = max(1, alertBatch.rows.count)
        id = lastId
        self.firstId = firstId
        self.alertBatch = alertBatch
        device = ""
        type = nil
        fence = nil
        self.bytes = bytes
    }

    static let ping = LiveEvent(kind: .ping, id: 0, device: "", type: nil, fence: nil, json: "")
}

/// What one fan-out round gives one client: its events, and their SSE
/// bytes (shared by every client that takes all of them): the small
/// events' in one buffer, a big one's (a batch of positions) its own,
/// never copied, so a round costs each client a write or two.
struct LiveChunk: Sendable {
    let events: [LiveEvent]
    let parts: [ByteBuffer]
    /// The events' weight: what the chunk counts for against the buffer.
    let weight: Int

    /// An event at least this big (bytes) is its own part, not copied.
    static let ownPart = 64 * 1024

    init(_ events: [LiveEvent]) {
        self.events = events
        weight = events.reduce(0) { $0 + $1.weight }
        // Consecutive small events are copied into one part; a big one is a part as it is.
        var parts: [ByteBuffer] = []
        var small = ByteBuffer()
        small.reserveCapacity(
            events.lazy.map(\.bytes.readableBytes).filter { $0 < Self.ownPart }.reduce(0, +))
        for e in events {
            if e.bytes.readableBytes < Self.ownPart {
                small.writeImmutableBuffer(e.bytes)
                continue
            }
            if small.readableBytes > 0 { parts.append(small) }
            small = ByteBuffer()
            parts.append(e.bytes)
        }
        if small.readableBytes > 0 { parts.append(small) }
        self.parts = parts
    }

    /// The chunk without the alerts up to `id` (a client that caught up
    /// from the database has them already): a batch of alerts that holds
    /// some of them is made again of the rest.
    func after(alert id: Int64) -> LiveChunk {
        LiveChunk(
            events.compactMap { e in
                guard e.kind.isAlert, e.firstId <= id else { return e }
                guard let batch = e.alertBatch, e.id > id else { return nil }
                return CompactAlerts.event(batch.after(id), lastId: e.id)
            })
    }

    /// Whether it holds an alert of id `id` or before.
    func repeats(alert id: Int64) -> Bool {
        events.contains { $0.kind.isAlert && $0.firstId <= id }
    }
}

/// What a client of the stream asked for: `device`, `type`, `fence`, and
/// whether it wants positions, and whether batched (one `positions` event
/// a round with all of them, for a client of the whole fleet), or batched
/// and compact (one `positions_compact` event a round, rows of a few
/// fields: `CompactPositions`); whether it wants alerts, and whether
/// batched and compact (one `alerts_compact` event a round: `CompactAlerts`).
struct EventFilter: Sendable {
    var device: String?
    var type: String?
    var fence: String?
    var positions = true
    var batch = false
    /// Batches as `positions_compact` (`batch` aside).
    var compact = false
    /// Alerts batched as `alerts_compact` (for a client of every alert).
    var compactAlerts = false
    /// The devices the client sees (`Identity.scope`).
    var scope: DeviceScope = .all
    /// Alert events at all (drivers see positions only).
    var alerts = true

    /// Takes every alert (no `device`, `type` or `fence`, no scope).
    var takesAllAlerts: Bool {
        device == nil && type == nil && fence == nil && scope.isAll && alerts
    }

    /// Gets a round's positions as one `positions` event.
    var batchesPositions: Bool { positions && batch && !compact && takesAllAlerts }

    /// Gets a round's positions as one `positions_compact` event.
    var compactsPositions: Bool { positions && compact && takesAllAlerts }

    /// Gets a round's alerts as one `alerts_compact` event.
    var compactsAlerts: Bool { compactAlerts && takesAllAlerts }

    /// Gets positions one `position` event each.
    var singlePositions: Bool { positions && !batchesPositions && !compactsPositions }

    /// Whether the client takes `e`; a scoped client's devices by `groups`.
    func admits(_ e: LiveEvent, groups: DeviceGroups) -> Bool {
        if e.kind != .ping, !scope.isAll {
            guard e.kind != .positions, e.kind != .compactPositions, e.kind != .compactAlerts,
                groups.admits(scope, device: e.device)
            else {
                return false
            }
        }
        switch e.kind {
        case .ping: return true
        case .positions: return batchesPositions
        case .compactPositions: return compactsPositions
        case .position:
            return singlePositions && (device == nil || device == e.device)
                && type == nil && fence == nil
        case .compactAlerts: return compactsAlerts
        case .alert:
            return alerts && !compactsAlerts && (device == nil || device == e.device)
                && (type == nil || type == e.type) && (fence == nil || fence == e.fence)
        case .command:
            return (device == nil || device == e.device) && type == nil && fence == nil
        }
    }
}
