import Testing

@testable import FleetGeo

/// WGS 84 geodesic distances against values computed with GeographicLib
/// (Karney's algorithms; `pip install geographiclib`,
/// `Geodesic.WGS84.Inverse(lat1, lon1, lat2, lon2)["s12"]`).
@Suite struct GeodesicTests {
    /// (lat1, lon1, lat2, lon2, GeographicLib's s12 in metres).
    static let reference: [(Double, Double, Double, Double, Double)] = [
        // Vincenty's own example: Flinders Peak to Buninyong.
        (
            -37.951_033_416_666_67, 144.424_867_888_888_89, -37.652_821_138_888_89,
            143.926_495_527_777_78, 54_972.271_139
        ),
        // JFK to LHR.
        (40.64, -73.78, 51.4, -0.46, 5_557_155.279_680),
        // One second of a car in Munich (t01's first two fixes).
        (48.163_506_6, 11.564_388_3, 48.163_576_9, 11.564_254_9, 12.632_505),
        (0, 0, 0, 0.001, 111.319_491),
        (60, 10, 60.0005, 10.002, 124.729_898),
        (-33.9, 151.2, -33.9003, 151.2004, 49.760_315),
        (52.629_151, -8.661_746, 52.64, -8.6, 4_351.206_132),
    ]

    @Test func matchesGeographicLibToTheMillimetre() {
        for (lat1, lon1, lat2, lon2, want) in Self.reference {
            let got = Geodesic.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            #expect(
                abs(got - want) < 0.001,
                "(\(lat1), \(lon1)) → (\(lat2), \(lon2)): \(got) m, want \(want)")
            // Symmetric.
            let back = Geodesic.distance(lat1: lat2, lon1: lon2, lat2: lat1, lon2: lon1)
            #expect(abs(back - got) < 0.001)
        }
    }

    @Test func shortAndLongFormulasAgreeWhereTheyMeet() {
        // Around the 0.05° switch, both methods within 1e-6 of each other.
        for lat in stride(from: -80.0, through: 80.0, by: 10) {
            for (dLat, dLon) in [(0.049, 0.0), (0.0, 0.049), (0.035, 0.035), (0.01, 0.002)] {
                let short = Geodesic.distance(
                    lat1: lat, lon1: 20, lat2: lat + dLat, lon2: 20 + dLon)
                let long = Geodesic.vincenty(lat1: lat, lon1: 20, lat2: lat + dLat, lon2: 20 + dLon)
                #expect(abs(short - long) / long < 1e-6, "at \(lat)°: \(short) vs \(long)")
            }
        }
    }

    @Test func edgeCases() {
        #expect(Geodesic.distance(lat1: 10, lon1: 10, lat2: 10, lon2: 10) == 0)
        #expect(Geodesic.vincenty(lat1: 10, lon1: 10, lat2: 10, lon2: 10) == 0)
        // Across the antimeridian: 0.2° of longitude at the equator (GeographicLib 22 263.898 m).
        let am = Geodesic.distance(lat1: 0, lon1: 179.9, lat2: 0, lon2: -179.9)
        #expect(abs(am - 22_263.898) < 0.01)
        // Nearly antipodal, where Vincenty does not converge: within 0.5 %
        // of GeographicLib's 19 944 127.421 m.
        let anti = Geodesic.distance(lat1: 0, lon1: 0, lat2: 0.5, lon2: 179.7)
        #expect(abs(anti - 19_944_127.421) / 19_944_127.421 < 0.005)
    }
}
