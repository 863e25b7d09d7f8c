/// One event for the live stream, formatted once for every client.
struct LiveEvent: Sendable {
    enum Kind: Sendable { case alert, position, ping }
    let kind: Kind
    /// The alert id (the SSE `id:`), 0 for positions and pings.
    let id: Int64
    let device: String
    let type: String?
    let fence: String?
    /// The event's JSON (`data:`).
    let json: String

    /// The event as SSE text (https://html.spec.whatwg.org/multipage/server-sent-events.html).
    var text: String {
        switch kind {
        case .alert: "id: \(id)\nevent: alert\ndata: \(json)\n\n"
        case .position: "event: position\ndata: \(json)\n\n"
        case .ping: ": keep-alive\n\n"
        }
    }

    static let ping = LiveEvent(kind: .ping, id: 0, device: "", type: nil, fence: nil, json: "")
}

/// What a client of the stream asked for: `device`, `type`, `fence`, and
/// whether it wants positions.
struct EventFilter: Sendable {
    var device: String?
    var type: String?
    var fence: String?
    var positions = true

    func admits(_ e: LiveEvent) -> Bool {
        switch e.kind {
        case .ping: return true
        case .position:
            return positions && (device == nil || device == e.device) && type == nil && fence == nil
        case .alert:
            return (device == nil || device == e.device) && (type == nil || type == e.type)
                && (fence == nil || fence == e.fence)
        }
    }
}
