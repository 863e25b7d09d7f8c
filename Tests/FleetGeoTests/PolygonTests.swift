import Testing

@testable import FleetGeo

/// A square 0…10 with a 4…6 hole.
let squareWithHole = Polygon(
    shell: Ring(
        [(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)].map { Coordinate(lat: $0.1, lon: $0.0) }),
    holes: [
        Ring([(4, 4), (6, 4), (6, 6), (4, 6), (4, 4)].map { Coordinate(lat: $0.1, lon: $0.0) })
    ])

@Suite struct PolygonTests {
    @Test func insideOutsideAndHoles() {
        #expect(squareWithHole.locate(x: 1, y: 1) == .inside)
        #expect(squareWithHole.locate(x: 5, y: 5) == .outside)
        #expect(squareWithHole.locate(x: 11, y: 5) == .outside)
        #expect(squareWithHole.locate(x: -0.0001, y: 5) == .outside)
    }

    @Test(arguments: [(0.0, 0.0), (10, 10), (5, 0), (0, 7.5), (4, 5), (6, 6), (5, 4)])
    func edgesAndVerticesAreBoundary(_ p: (Double, Double)) {
        #expect(squareWithHole.locate(x: p.0, y: p.1) == .boundary)
    }

    @Test func diagonalEdgePointsAreBoundary() {
        let tri = Ring([(0, 0), (3, 1), (0, 2), (0, 0)].map { Coordinate(lat: $0.1, lon: $0.0) })
        #expect(tri.locate(x: 1.5, y: 0.5) == .boundary)
        #expect(tri.locate(x: 1.5, y: 0.6) == .inside)
        #expect(tri.locate(x: 1.5, y: 0.4) == .outside)
    }

    @Test func segmentIntersection() {
        #expect(Segment.intersects(0, 0, 2, 2, 0, 2, 2, 0))
        #expect(!Segment.intersects(0, 0, 1, 1, 2, 2, 3, 3))
        #expect(Segment.intersects(0, 0, 2, 2, 1, 1, 3, 3))  // collinear overlap
        #expect(Segment.intersects(0, 0, 2, 0, 2, 0, 3, 1))  // touching at an end
    }
}
