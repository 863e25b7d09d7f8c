import FleetJSON
import FleetStorage

/// An alert as the usage report needs it: the few kinds it counts, without
/// coordinates or details (a month of a big fleet's alerts is millions; the
/// report keeps this much of each, not the whole record).
public struct UsageEvent: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case enter, exit, overspeedStart, overspeedEnd, tripStart, idleStart, idleEnd
    }

    public var device: String
    public var kind: Kind
    /// Unix ms, and the alert id (commit order, for ties).
    public var time: Int64
    public var id: Int64
    public var fence: String?
    /// `overspeed_end`'s and `idle_end`'s `duration_s`.
    public var durationS: Double?

    public init(
        device: String, kind: Kind, time: Int64, id: Int64, fence: String? = nil,
        durationS: Double? = nil
    ) {
        self.device = device
        self.kind = kind
        self.time = time
        self.id = id
        self.fence = fence
        self.durationS = durationS
    }

    /// The event of an alert the report counts; nil for the other types
    /// (and for a geofence alert without its fence).
    public init?(_ a: AlertRecord) {
        let kind: Kind
        switch a.type {
        case "geofence_enter": kind = .enter
        case "geofence_exit": kind = .exit
        case "overspeed_start": kind = .overspeedStart
        case "overspeed_end": kind = .overspeedEnd
        case "trip_start": kind = .tripStart
        case "idle_start": kind = .idleStart
        case "idle_end": kind = .idleEnd
        default: return nil
        }
        if kind == .enter || kind == .exit, a.fence == nil { return nil }
        var duration: Double?
        if kind == .overspeedEnd || kind == .idleEnd, let text = a.details,
            let doc = try? JSONReader.parseDocument(Array(text.utf8)),
            case .number(let n)? = doc["duration_s"]
        {
            duration = n
        }
        self.init(
            device: a.device, kind: kind, time: a.time, id: a.id,
            fence: kind == .enter || kind == .exit ? a.fence : nil, durationS: duration)
    }
}
