import FleetModel

/// A service done to a vehicle under a maintenance plan (`maintenance_done`):
/// when, at what odometer, by whom. A plan counts from a vehicle's latest
/// record; fleetd writes the first one itself (`by` = `plan`) when a plan
/// first meets a vehicle, so that a new plan does not find every vehicle due.
public struct MaintenanceRecord: Sendable, Equatable {
    public var id: Int64
    /// `MaintenancePlan.name`.
    public var plan: String
    public var device: String
    /// When the service was done, Unix ms.
    public var doneMs: Int64
    /// The vehicle's odometer then (fleetd's gated odometer), metres.
    public var odometerM: Double
    /// `user:NAME`, `token:NAME`, `local:USER` (fleetctl) or `plan` (the start).
    public var by: String
    /// Free text, at most 500 characters.
    public var note: String?

    public init(
        id: Int64 = 0, plan: String, device: String, doneMs: Int64, odometerM: Double, by: String,
        note: String? = nil
    ) {
        self.id = id
        self.plan = plan
        self.device = device
        self.doneMs = doneMs
        self.odometerM = odometerM
        self.by = by
        self.note = note
    }
}

extension MaintenanceRecord: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, plan, device, done, by, note
        case odometerKm = "odometer_km"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(plan, forKey: .plan)
        try c.encode(device, forKey: .device)
        try c.encode(RFC3339.format(millis: doneMs), forKey: .done)
        try c.encode((odometerM / 100).rounded() / 10, forKey: .odometerKm)
        try c.encode(by, forKey: .by)
        try c.encode(note, forKey: .note)
    }
}
