import FleetGeo

/// `[geofences]`: the fences file, and how much a fences document may hold.
public struct GeofencesConfig: Sendable, Equatable {
    /// The file fleetd names when none is configured.
    public static let defaultFile = "config/geofences.geojson"
    /// GeoJSON file of fences; "" for none.
    public var file = GeofencesConfig.defaultFile
    /// Limits on the file and on `PUT /api/v1/fences` (`max_fences`,
    /// `max_vertices`, `max_fence_vertices`).
    public var limits = FenceLimits()

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        file = try s.string("file", default: file)
        limits.maxFences = try s.int(
            "max_fences", default: limits.maxFences, range: 1...10_000_000)
        limits.maxVertices = try s.int(
            "max_vertices", default: limits.maxVertices, range: 1...1_000_000_000)
        limits.maxFenceVertices = try s.int(
            "max_fence_vertices", default: limits.maxFenceVertices, range: 4...100_000_000)
    }
}
