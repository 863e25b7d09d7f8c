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
}
