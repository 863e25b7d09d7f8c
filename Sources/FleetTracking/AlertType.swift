/// The kinds of alert fleetd raises. Raw values are stored and printed.
public enum AlertType: String, Sendable, CaseIterable, Codable {
    case geofenceEnter = "geofence_enter"
    case geofenceExit = "geofence_exit"
    case overspeedStart = "overspeed_start"
    case overspeedEnd = "overspeed_end"
    case tripStart = "trip_start"
    case tripEnd = "trip_end"
    case deviceSilent = "device_silent"
    case deviceBack = "device_back"
    /// The device reported its ignition turned on (or off): Teltonika IO
    /// 239, the GT06 ACC bit, the H02 status word, JSON `ignition`.
    case ignitionOn = "ignition_on"
    case ignitionOff = "ignition_off"
    /// Ignition on and standing for `tracking.idle_after_s` (`idle_start`,
    /// dated when it began), and its end with the duration (`idle_end`).
    case idleStart = "idle_start"
    case idleEnd = "idle_end"
    /// An alarm the device itself raised (SOS, power cut, crash, harsh
    /// braking, …): `details.alarm` names its kind.
    case deviceAlarm = "device_alarm"
    /// A maintenance plan (`[[maintenance]]`) came due for the vehicle:
    /// `details.plan` names it, `details.due_by` what made it due.
    case maintenanceDue = "maintenance_due"
}
