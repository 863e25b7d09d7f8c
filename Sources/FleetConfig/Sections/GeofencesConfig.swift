import FleetGeo
import Foundation

/// `[geofences]`: the fences file, and how much a fences document may hold.
public struct GeofencesConfig: Sendable, Equatable {
    /// The file fleetd names when none is configured.
    public static let defaultFile = "config/geofences.geojson"
    /// GeoJSON file of fences; "" for none.
    public var file = GeofencesConfig.defaultFile
    /// Where `PUT /api/v1/fences` keeps an uploaded document; "" (the
    /// default) replaces `file` itself. When set and the file exists, it
    /// wins over `file` at start-up and on SIGHUP (remove it to return to
    /// `file`). The installed config points it into the service's
    /// `StateDirectory=` (`/var/lib/fleetd/`), since `ProtectSystem=strict`
    /// keeps `/etc` read-only to the service.
    public var uploads = ""
    /// Limits on the file and on `PUT /api/v1/fences` (`max_fences`,
    /// `max_vertices`, `max_fence_vertices`).
    public var limits = FenceLimits()

    public init() {}

    /// The file start-up and SIGHUP load: `uploads` when it is set and
    /// exists, else `file`.
    public var effectiveFile: String {
        if !uploads.isEmpty, FileManager.default.fileExists(atPath: uploads) { return uploads }
        return file
    }

    /// The file `PUT /api/v1/fences` writes: `uploads` when set, else
    /// `file` ("" when neither is: uploads are refused).
    public var uploadTarget: String { uploads.isEmpty ? file : uploads }

    init(_ s: inout ConfigSection) throws(ConfigError) {
        file = try s.string("file", default: file)
        uploads = try s.string("uploads", default: uploads)
        limits.maxFences = try s.int(
            "max_fences", default: limits.maxFences, range: 1...10_000_000)
        limits.maxVertices = try s.int(
            "max_vertices", default: limits.maxVertices, range: 1...1_000_000_000)
        limits.maxFenceVertices = try s.int(
            "max_fence_vertices", default: limits.maxFenceVertices, range: 4...100_000_000)
    }
}
