import CBatchUDP
import FleetConfig
import FleetGeo
import Foundation

/// Reads the configured fences file into an index.
enum FenceFile {
    /// Loads `path` (nil or "" = no fences). Throws `FenceFileError` for
    /// unreadable or invalid files.
    static func load(_ path: String, limits: FenceLimits = FenceLimits()) throws(FenceFileError)
        -> FenceIndex
    {
        try loadWithText(path, limits: limits).0
    }

    /// The configured fences loaded as start-up loads them: an uploaded
    /// document (`uploads`) when there is one, else `file`, where "" is no
    /// fences, the default file may be missing (`missingDefault`), any
    /// other must load. `note` says which, for the log and `--check-config`.
    static func loadConfigured(_ g: GeofencesConfig) throws(FenceFileError) -> (
        index: FenceIndex, text: [UInt8], note: String, missingDefault: Bool
    ) {
        let path = g.effectiveFile
        let limits = g.limits
        if path != g.file {
            let (index, text) = try loadWithText(path, limits: limits)
            let instead = g.file.isEmpty ? "" : " instead of \(g.file) (remove it to use that file)"
            return (
                index, text,
                "loaded \(index.fences.count) fences from \(path), uploaded through the API,\(instead)",
                false
            )
        }
        if path == GeofencesConfig.defaultFile, !FileManager.default.fileExists(atPath: path) {
            return (
                FenceIndex(fences: []), [],
                "default fences file \(path) not found: running with no fences", true
            )
        }
        if path.isEmpty {
            return (
                FenceIndex(fences: []), [],
                "no fences file configured (geofences.file = \"\"): running with no fences", false
            )
        }
        let (index, text) = try loadWithText(path, limits: limits)
        return (index, text, "loaded \(index.fences.count) fences from \(path)", false)
    }

    /// Loads `path` and returns its text too (empty for no file). A file
    /// past `limits` is refused before its index is built.
    static func loadWithText(_ path: String, limits: FenceLimits) throws(FenceFileError) -> (
        FenceIndex, [UInt8]
    ) {
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
        let fences = try GeoJSONFenceLoader.load(Array(data), file: path)
        let over = limits.problems(fences)
        guard over.isEmpty else { throw FenceFileError(file: path, problems: over) }
        let index = FenceIndex(fences: fences)
        // Parsing and building freed ~100 MB (10 000 fences) in this thread's
        // malloc arena; the engine's threads allocate from their own arenas,
        // so without a trim it stays resident for the daemon's life. See
        // malloc_trim(3).
        _ = cbu_malloc_trim(0)
        return (index, Array(data))
    }
}
