/// The kinds of alert fleetd raises. Raw values are stored and printed.
public enum AlertType: String, Sendable, CaseIterable, Codable {
    case geofenceEnter = "geofence_enter"
    case geofenceExit = "geofence_exit"
}
