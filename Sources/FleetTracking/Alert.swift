/// One alert raised by the tracker, before it is stored (and numbered).
public struct Alert: Sendable, Equatable {
    public var type: AlertType
    public var device: String
    /// When the state that the alert reports began, Unix milliseconds (from the fixes).
    public var time: Int64
    /// The fence's id, for geofence alerts.
    public var fence: String?
    /// Where the device was, degrees.
    public var lat: Double
    public var lon: Double
    /// Exit alerts: how long the vehicle was inside, seconds.
    public var durationS: Double?
    /// Enter and exit both inferred from a segment that cut the fence between two fixes.
    public var crossed: Bool

    public init(
        type: AlertType, device: String, time: Int64, fence: String?, lat: Double, lon: Double,
        durationS: Double? = nil, crossed: Bool = false
    ) {
        self.type = type
        self.device = device
        self.time = time
        self.fence = fence
        self.lat = lat
        self.lon = lon
        self.durationS = durationS
        self.crossed = crossed
    }

    /// The details as a JSON object text, or nil when there are none.
    public var detailsJSON: String? {
        var parts: [String] = []
        if let d = durationS {
            parts.append("\"duration_s\":\(d == d.rounded() ? String(Int64(d)) : String(d))")
        }
        if crossed { parts.append("\"crossed\":true") }
        return parts.isEmpty ? nil : "{" + parts.joined(separator: ",") + "}"
    }
}
