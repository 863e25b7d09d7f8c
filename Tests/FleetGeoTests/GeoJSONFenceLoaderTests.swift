import Foundation
import Testing

@testable import FleetGeo

@Suite struct GeoJSONFenceLoaderTests {
    func load(_ s: String) throws(FenceFileError) -> [Fence] {
        try GeoJSONFenceLoader.load(Array(s.utf8), file: "test.geojson")
    }

    func problems(_ s: String) -> [String] {
        do {
            _ = try load(s)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func loadsTheBundledRouteZones() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/geofences.geojson")
        let fences = try GeoJSONFenceLoader.load(Array(try Data(contentsOf: url)), file: url.path)
        #expect(fences.count == 6)
        #expect(fences.map(\.id).contains("munich-box"))
    }

    @Test func namesFencesByIdThenPropertiesIdThenName() throws {
        let fc = """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","id":"a","properties":{"id":"x","name":"n"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}},
             {"type":"Feature","properties":{"id":"b","name":"n"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}},
             {"type":"Feature","properties":{"name":"c","speed_limit_kmh":30,"margin_m":5,"dwell_s":60,"color":"red"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}},
             {"type":"Feature","id":7,"properties":null,"geometry":{"type":"Point","coordinates":[2,48]}}
            ]}
            """
        let p = problems(fc)
        #expect(
            p == [
                "feature 3 (id \"7\"): a Point fence needs \"properties.radius_m\" (a number of metres)"
            ])
        let fixed = fc.replacingOccurrences(
            of: "\"properties\":null", with: "\"properties\":{\"radius_m\":100}")
        let fences = try load(fixed)
        #expect(fences.map(\.id) == ["a", "b", "c", "7"])
        #expect(fences[2].speedLimitKmh == 30)
        #expect(fences[2].marginM == 5)
        #expect(fences[2].dwellS == 60)
        #expect(fences[2].properties["color"] == .string("red"))
    }

    @Test func reportsEveryProblemOfEveryFeature() {
        let p = problems(
            """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","id":"open","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}},
             {"type":"Feature","id":"short","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}},
             {"type":"Feature","id":"range","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,95],[1,1],[0,0]]]}},
             {"type":"Feature","id":"text","geometry":{"type":"Polygon","coordinates":[[[0,0],["1",0],[1,1],[0,0]]]}},
             {"type":"Feature","id":"hole","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]],[[5,5],[6,5],[6,6],[5,5]]]}},
             {"type":"Feature","id":"neg","properties":{"radius_m":-3},"geometry":{"type":"Point","coordinates":[0,0]}},
             {"type":"Feature","id":"kind","geometry":{"type":"GeometryCollection","geometries":[]}},
             {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}},
             {"type":"Feature","id":"open","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}}
            ]}
            """)
        #expect(
            p == [
                "feature 0 (id \"open\"): polygon exterior ring: ring is not closed (its last position must repeat the first)",
                "feature 1 (id \"short\"): polygon exterior ring: a ring needs at least 4 positions, found 3",
                "feature 2 (id \"range\"): polygon exterior ring position 1: latitude 95.0 out of range (−90…90)",
                "feature 3 (id \"text\"): polygon exterior ring position 1: coordinates must be numbers",
                "feature 4 (id \"hole\"): polygon hole 1: lies outside its exterior ring",
                "feature 5 (id \"neg\"): \"radius_m\" must not be negative (found -3)",
                "feature 6 (id \"kind\"): unknown geometry type \"GeometryCollection\" (expected Polygon, MultiPolygon, Point or LineString)",
                "feature 7: no id: give the feature an \"id\", or a \"properties.id\" or \"properties.name\"",
                "feature 8 (id \"open\"): id \"open\" is already used by feature 0",
            ])
    }

    @Test func invalidJSONNamesLineAndColumn() {
        #expect(
            problems("{\"type\": \"FeatureCollection\",\n \"features\": [}") == [
                "not valid JSON: line 2, column 15: expected a value"
            ])
        #expect(
            problems("[]") == ["top level must be an object with \"type\": \"FeatureCollection\""])
    }

    /// `properties.groups`: absent or null for every vehicle; else 1–100
    /// group names, each problem named with its feature.
    @Test func readsTheGroupsAFenceIsLimitedTo() throws {
        func feature(_ id: String, _ groups: String) -> String {
            #"{"type":"Feature","id":"\#(id)","properties":{"groups":\#(groups)},"geometry":{"type":"Point","coordinates":[11,48]}}"#
                .replacingOccurrences(of: #""groups":"#, with: #""radius_m":50,"groups":"#)
        }
        let ok = try load(
            #"{"type":"FeatureCollection","features":["#
                + [feature("a", "null"), feature("b", #"["North","East side"]"#)].joined(
                    separator: ",")
                + "]}")
        #expect(ok.map(\.groups) == [nil, ["North", "East side"]])
        let bad = problems(
            #"{"type":"FeatureCollection","features":["#
                + [
                    feature("c", "[]"), feature("d", #"["ok"," no"]"#), feature("e", #""North""#),
                    feature("f", "[3]"),
                ].joined(separator: ",") + "]}")
        #expect(bad.count == 4, "\(bad)")
        #expect(bad.allSatisfy { $0.contains("groups") }, "\(bad)")
        #expect(bad[1].contains("\"d\"") && bad[1].contains("item 1"), "\(bad)")
    }
}
