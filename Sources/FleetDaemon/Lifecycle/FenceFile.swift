import CBatchUDP
import FleetGeo
import Foundation

/// Reads the configured fences file into an index.
enum FenceFile {
    /// Loads `path` (nil or "" = no fences). Throws `FenceFileError` for
    /// unreadable or invalid files.
    static func load(_ path: String) throws(FenceFileError) -> FenceIndex {
        try loadWithText(path).0
    }

    /// What `fleetd --check-config` says of the configured fences file:
    /// loaded as start-up loads it (the default file may be missing).
    /// Returns a summary; throws `FenceFileError` as start-up would.
    static func check(_ config: DaemonConfig) throws(FenceFileError) -> String {
        let path = config.geofences.file
        if path.isEmpty { return "no fences file" }
        if path == GeofencesConfig.defaultFile, !FileManager.default.fileExists(atPath: path) {
            return "no fences (the default \(path) is missing)"
        }
        return "\(try load(path).fences.count) fences from \(path)"
    }

    /// Loads `path` and returns its text too (empty for no file).
    static func loadWithText(_ path: String) throws(FenceFileError) -> (FenceIndex, [UInt8]) {
        guard !path.isEmpty else { return (FenceIndex(fences: []), []) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw FenceFileError(
                file: path,
                problems: [FenceProblem(featureIndex: nil, id: nil, message: "not found")])
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FenceFileError(
                file: path,
                problems: [
                    FenceProblem(featureIndex: nil, id: nil, message: "cannot read the file")
                ])
        }
        let index = FenceIndex(fences: try GeoJSONFenceLoader.load(Array(data), file: path))
        // Parsing and building freed ~100 MB (10 000 fences) in this thread's
        // malloc arena; the engine's threads allocate from their own arenas,
        // so without a trim it stays resident for the daemon's life. See
        // malloc_trim(3).
        _ = cbu_malloc_trim(0)
        return (index, Array(data))
    }
}
