/// `[geofences]`: the fences file.
public struct GeofencesConfig: Sendable, Equatable {
    /// The file fleetd names when none is configured.
    public static let defaultFile = "config/geofences.geojson"
    /// GeoJSON file of fences; "" for none.
    public var file = GeofencesConfig.defaultFile

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        file = try s.string("file", default: file)
    }
}
