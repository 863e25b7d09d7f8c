/// What the tracker remembers of one device between fixes.
///
/// It is persisted in the same transaction as the positions and alerts that
/// produced it, so after a restart tracking continues where the data ends.
public struct DeviceState: Sendable, Equatable {
    /// Time of the last fix processed in order, Unix milliseconds.
    public var lastTime: Int64
    /// Position of the last accepted valid fix, degrees (NaN before the first).
    public var lat: Double
    public var lon: Double
    /// Time of that fix, Unix ms (for crossings between two fixes).
    public var positionTime: Int64
    /// The fences the device is in, entering or leaving, by fence id, ascending.
    public var fences: [FenceMembership]

    public init(
        lastTime: Int64, lat: Double, lon: Double, positionTime: Int64? = nil,
        fences: [FenceMembership]
    ) {
        self.lastTime = lastTime
        self.lat = lat
        self.lon = lon
        self.positionTime = positionTime ?? lastTime
        self.fences = fences
    }

    /// Ids of the fences the device is confirmed inside (the enter alert raised).
    public var insideFences: [String] {
        fences.compactMap {
            switch $0.phase {
            case .inside, .exiting: $0.fence
            case .entering: nil
            }
        }
    }

    /// The memberships as stored (one line each).
    public var fencesText: String { fences.map(\.line).joined(separator: "\n") }

    /// Reads stored memberships; bare ids (the first schema) count as inside since `lastTime`.
    public static func fences(fromText text: String, lastTime: Int64) -> [FenceMembership] {
        text.split(separator: "\n").compactMap { FenceMembership(line: $0, fallback: lastTime) }
    }
}
