/// A GeoJSON Polygon: one exterior ring and zero or more holes (RFC 7946 §3.1.6).
///
/// A point on any ring's edge (shell or hole) is on the polygon's boundary and
/// counts as inside: fleetd's fences are closed sets.
public struct Polygon: Sendable {
    public let shell: Ring
    public let holes: [Ring]

    public init(shell: Ring, holes: [Ring]) {
        self.shell = shell
        self.holes = holes
    }

    public var bounds: BoundingBox { shell.bounds }

    /// Location of `(x, y)` (lon, lat in degrees) relative to the polygon.
    public func locate(x: Double, y: Double) -> PointLocation {
        guard shell.bounds.contains(x: x, y: y) else { return .outside }
        let s = shell.locate(x: x, y: y)
        if s != .inside { return s }
        if holes.isEmpty { return .inside }
        return holes.withUnsafeBufferPointer { holes in
            for i in holes.indices where holes[i].bounds.contains(x: x, y: y) {
                switch holes[i].locate(x: x, y: y) {
                case .inside: return .outside
                case .boundary: return .boundary
                case .outside: continue
                }
            }
            return .inside
        }
    }

    /// True when an edge of the shell or of a hole is within
    /// `limit2.squareRoot()` metres of `proj`'s origin (`Ring.near`); the
    /// holes are read in place, not copied.
    func near(_ proj: LocalProjection, within limit2: Double) -> Bool {
        if shell.near(proj, within: limit2) { return true }
        if holes.isEmpty { return false }
        return holes.withUnsafeBufferPointer { holes in
            holes.indices.contains { holes[$0].near(proj, within: limit2) }
        }
    }

    /// Number of vertices over all rings, closing positions not counted.
    public var vertexCount: Int { shell.edgeCount + holes.reduce(0) { $0 + $1.edgeCount } }
}
