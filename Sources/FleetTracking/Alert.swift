/// One alert raised by the tracker, before it is stored (and numbered).
public struct Alert: Sendable, Equatable {
    public var type: AlertType
    public var device: String
    /// When the state that the alert reports began, Unix milliseconds (from
    /// the fixes; `device_silent` is dated by the daemon's clock).
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
    /// Raised by a fix from a device's backlog: one received long after its
    /// fix time (`TrackerSettings.backlogAfterS`). Its time is still the
    /// true one.
    public var backlog = false
    /// Further details by alert type (speeds, distances, fence names).
    public var details: [AlertDetail]

    public init(
        type: AlertType, device: String, time: Int64, fence: String?, lat: Double, lon: Double,
        durationS: Double? = nil, crossed: Bool = false, details: [AlertDetail] = []
    ) {
        self.type = type
        self.device = device
        self.time = time
        self.fence = fence
        self.lat = lat
        self.lon = lon
        self.durationS = durationS
        self.crossed = crossed
        self.details = details
    }

    /// The details as a JSON object text, or nil when there are none.
    /// Written into one string (an alert storm builds millions of them on
    /// the writer's thread).
    public var detailsJSON: String? {
        guard durationS != nil || crossed || backlog || !details.isEmpty else { return nil }
        var out = "{"
        out.reserveCapacity(64)
        var first = true
        func next() {
            if !first { out += "," }
            first = false
        }
        if let d = durationS {
            next()
            AlertDetail("duration_s", d).write(to: &out)
        }
        if crossed {
            next()
            out += "\"crossed\":true"
        }
        if backlog {
            next()
            out += "\"backlog\":true"
        }
        for d in details {
            next()
            d.write(to: &out)
        }
        out += "}"
        return out
    }
}
