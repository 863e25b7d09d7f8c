import FleetTestSupport
import Foundation
import Testing

@Suite(.offPool) struct FencesCommandTests {
    let countries = Binaries.packageRoot.appendingPathComponent(
        "Sources/FleetHTTP/Console/Files/natural_earth_110m_countries.geojson"
    ).path

    @Test func checkSummarisesAValidFile() throws {
        let r = try runTool(try Binaries.path("fleetctl"), ["fences", "check", countries])
        #expect(r.status == 0)
        #expect(r.out.contains("valid, 177 fences"))
        #expect(r.out.contains("multipolygon: 30"))
        #expect(r.out.contains("polygon: 147"))
        #expect(r.out.contains("vertices: 10359"))
        #expect(
            r.out.contains("bounding box: lon -180.000000 … 180.000000, lat -90.000000 … 83.645130")
        )
    }

    @Test func checkListsEveryProblemAndFails() throws {
        let file = TestScratch.root.appendingPathComponent(
            "bad-\(UUID().uuidString.prefix(6)).geojson"
        ).path
        try """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","id":"a","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}},
         {"type":"Feature","id":"b","properties":{"radius_m":-5},"geometry":{"type":"Point","coordinates":[0,0]}}
        ]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try runTool(try Binaries.path("fleetctl"), ["fences", "check", file])
        #expect(r.status == 1)
        #expect(r.err.contains("2 problems"))
        #expect(r.err.contains("feature 0 (id \"a\"): polygon exterior ring: ring is not closed"))
        #expect(
            r.err.contains("feature 1 (id \"b\"): \"radius_m\" must not be negative (found -5)"))
    }

    @Test func locatePrintsOneLinePerContainingFence() throws {
        let points = TestScratch.root.appendingPathComponent(
            "pts-\(UUID().uuidString.prefix(6)).csv"
        ).path
        try "id,lon,lat\nberlin,13.4,52.5\nsea,-30,40\nfiji-east,-179.9,-16.3\nparis,2.35,48.85\n"
            .write(toFile: points, atomically: true, encoding: .utf8)
        let r = try runTool(
            try Binaries.path("fleetctl"),
            ["fences", "locate", "--fences", countries, "--input", points])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "berlin,Germany\nfiji-east,Fiji\nparis,France\n")

        try "p1,13.4,52.5\np2,13.4,north\n".write(toFile: points, atomically: true, encoding: .utf8)
        let bad = try runTool(
            try Binaries.path("fleetctl"),
            ["fences", "locate", "--fences", countries, "--input", points])
        #expect(bad.status == 1)
        #expect(bad.err.contains(":2: expected id,lon,lat"))
    }

    /// Points a hair's breadth (1e-12° … 1e-6°) from the countries' edges and
    /// on their vertices: `fleetctl fences locate` places every one as GEOS
    /// does (shapely's `covers`, from PyPI; `make setup-test` installs it).
    @Test func locateAgreesWithGEOSBesideRealBoundaries() throws {
        let python = Binaries.packageRoot.appendingPathComponent(".build/pytools/bin/python3").path
        let script = Binaries.packageRoot.appendingPathComponent("scripts/geos_check.py").path
        let r = try runTool(python, [script, try Binaries.path("fleetctl"), countries, "20000"])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("fleetd inside where GEOS outside: 0, outside where GEOS inside: 0"))
    }
}
