import FleetGeo
import Foundation

/// Reads the configured fences file into an index.
enum FenceFile {
    /// Loads `path` (nil or "" = no fences). Throws `FenceFileError` for
    /// unreadable or invalid files.
    static func load(_ path: String) throws(FenceFileError) -> FenceIndex {
        guard !path.isEmpty else { return FenceIndex(fences: []) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FenceFileError(
                file: path,
                problems: [
                    FenceProblem(featureIndex: nil, id: nil, message: "cannot read the file")
                ])
        }
        return FenceIndex(fences: try GeoJSONFenceLoader.load(Array(data), file: path))
    }
}
