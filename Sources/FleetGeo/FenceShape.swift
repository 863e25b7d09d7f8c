/// The geometry of one fence.
public enum FenceShape: Sendable {
    /// A GeoJSON Polygon (one element) or MultiPolygon.
    case polygons([Polygon])
    /// A GeoJSON Point with `properties.radius_m`: every position within
    /// `radiusM` metres (haversine) of the centre.
    case circle(center: Coordinate, radiusM: Double)
    /// A GeoJSON LineString with `properties.width_m`: every position within
    /// `halfWidthM` metres of the line.
    case corridor(line: [Coordinate], halfWidthM: Double)

    /// The kind's name as `fleetctl fences check` reports it.
    public var kindName: String {
        switch self {
        case .polygons(let p): p.count == 1 ? "polygon" : "multipolygon"
        case .circle: "circle"
        case .corridor: "corridor"
        }
    }

    /// Vertices of the shape (rings' closing positions not counted).
    public var vertexCount: Int {
        switch self {
        case .polygons(let ps): ps.reduce(0) { $0 + $1.vertexCount }
        case .circle: 1
        case .corridor(let line, _): line.count
        }
    }
}
