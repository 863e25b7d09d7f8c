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
