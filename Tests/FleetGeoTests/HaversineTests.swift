import Testing

@testable import FleetGeo

@Suite struct HaversineTests {
    @Test func knownDistances() {
        // One degree of latitude on the mean-radius sphere: R·π/180.
        let d = Haversine.distance(Coordinate(lat: 0, lon: 0), Coordinate(lat: 1, lon: 0))
        #expect(abs(d - 111_195.08) < 0.01)
        // Paris – London, about 343.6 km on this sphere.
        let pl = Haversine.distance(
            Coordinate(lat: 48.8566, lon: 2.3522), Coordinate(lat: 51.5074, lon: -0.1278))
        #expect(abs(pl - 343_556) < 100)
        // Across the antimeridian: 0.2° of longitude at the equator.
        let am = Haversine.distance(Coordinate(lat: 0, lon: 179.9), Coordinate(lat: 0, lon: -179.9))
        #expect(abs(am - 22_239.0) < 1)
        #expect(Haversine.distance(Coordinate(lat: 10, lon: 10), Coordinate(lat: 10, lon: 10)) == 0)
    }
}

@Suite struct DistanceToBoundaryTests {
    @Test func metresToTheNearestEdge() {
        // A box 11.0…11.1 E, 48.0…48.1 N; 0.001° of latitude is 111.195 m.
        let box = Fence(
            id: "b", name: "b",
            shape: .polygons([
                Polygon(
                    shell: Ring(
                        [(11.0, 48.0), (11.1, 48.0), (11.1, 48.1), (11.0, 48.1), (11.0, 48.0)].map {
                            Coordinate(lat: $0.1, lon: $0.0)
                        }),
                    holes: [])
            ]))
        #expect(abs(box.distanceToBoundary(Coordinate(lat: 48.101, lon: 11.05)) - 111.195) < 0.2)
        #expect(abs(box.distanceToBoundary(Coordinate(lat: 48.099, lon: 11.05)) - 111.195) < 0.2)
        #expect(box.distanceToBoundary(Coordinate(lat: 48.1, lon: 11.05)) < 1e-6)
        let circle = Fence(
            id: "c", name: "c", shape: .circle(center: Coordinate(lat: 48, lon: 11), radiusM: 500))
        let p = Coordinate(lat: 48.01, lon: 11)  // 1111.95 m north of the centre
        #expect(abs(circle.distanceToBoundary(p) - 611.95) < 0.1)
        let corridor = Fence(
            id: "k", name: "k",
            shape: .corridor(
                line: [Coordinate(lat: 48, lon: 11), Coordinate(lat: 48, lon: 11.1)], halfWidthM: 50
            ))
        #expect(
            abs(corridor.distanceToBoundary(Coordinate(lat: 48.001, lon: 11.05)) - 61.195) < 0.2)
    }
}
