import FleetGeo
import FleetStorage
import Foundation
import Testing

@testable import FleetReports

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SVG of a bundled route: well-formed, with its track, fences, trip
/// and alert markers, scale bar and north arrow, every drawn coordinate of
/// the track and markers inside the viewBox.
@Suite struct TrackMapTests {
    /// The elements of an SVG document: name, attributes, in order.
    final class Elements: NSObject, XMLParserDelegate {
        var all: [(name: String, attributes: [String: String])] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            all.append((name, attributes))
        }
    }

    func parse(_ svg: String) throws -> Elements {
        let parser = XMLParser(data: Data(svg.utf8))
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        return elements
    }

    func bus() throws -> (TrackMap, trips: Int, alerts: Int) {
        let r = try BundledRoutes.records()
        let device = "t03_limerick_bus304"
        var map = TrackMap(
            title: "Bus 304 <test> & co",
            track: r.fixes.filter { $0.device == device }.map {
                Coordinate(lat: $0.lat, lon: $0.lon)
            },
            fences: try BundledRoutes.fences(), markers: [])
        let trips = r.trips.filter { $0.device == device }
        for t in trips {
            map.markers.append(
                .init(lat: t.startLat, lon: t.startLon, kind: .tripStart, label: "start"))
            map.markers.append(.init(lat: t.endLat, lon: t.endLon, kind: .tripEnd, label: "end"))
        }
        let alerts = r.alerts.filter { $0.device == device && $0.fence != nil }
        for a in alerts {
            map.markers.append(
                .init(lat: a.lat!, lon: a.lon!, kind: .alert, label: "\(a.type) \(a.fence!)"))
        }
        return (map, trips.count, alerts.count)
    }

    @Test func theSVGHasEveryPartInsideItsFrame() throws {
        let (map, trips, alerts) = try bus()
        #expect(trips >= 4 && alerts == 4)
        let e = try parse(map.svg())
        let root = try #require(e.all.first)
        #expect(root.name == "svg")
        let box = (root.attributes["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) }
        #expect(box.count == 4 && box[0] == 0 && box[1] == 0 && box[2] == 1000 && box[3] > 200)
        let (w, h) = (box[2], box[3])
        let ids = Set(e.all.compactMap { $0.attributes["id"] })
        #expect(ids.isSuperset(of: ["fences", "track", "markers", "scale", "north"]))
        // The track: every point inside the frame, as many as the fixes.
        let lines = e.all.filter { $0.attributes["class"] == "track" }
        let points = lines.flatMap { ($0.attributes["points"] ?? "").split(separator: " ") }
            .map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(points.count == map.track.count)
        #expect(
            points.allSatisfy {
                $0.count == 2 && (0...w).contains($0[0]) && (0...h).contains($0[1])
            })
        // Markers: trips' starts and ends, alerts, each inside the frame.
        func circles(_ c: String) -> [[Double]] {
            e.all.filter { $0.name == "circle" && $0.attributes["class"] == c }.map {
                [Double($0.attributes["cx"] ?? "") ?? -1, Double($0.attributes["cy"] ?? "") ?? -1]
            }
        }
        #expect(circles("trip-start").count == trips && circles("trip-end").count == trips)
        #expect(circles("alert").count == alerts)
        for p in circles("trip-start") + circles("trip-end") + circles("alert") {
            #expect((0...w).contains(p[0]) && (0...h).contains(p[1]))
        }
        // The fences near the track (Limerick's two), with their names; not the others.
        let fences = e.all.filter { $0.attributes["class"] == "fence" }
        #expect(
            Set(fences.compactMap { $0.attributes["data-name"] }) == [
                "limerick box", "limerick hull",
            ])
        // A round scale bar of the length it says, at this map's scale.
        let metres = try #require(
            e.all.first { $0.attributes["id"] == "scale" }?.attributes["data-metres"].flatMap(
                Double.init))
        let digits = metres / pow(10, floor(log10(metres)))
        #expect([1.0, 2, 5].contains(digits))
        // Text is escaped.
        #expect(map.svg().contains("Bus 304 &lt;test&gt; &amp; co"))
    }

    @Test func shapesKeepTheirProportionsAtTheFleetsLatitude() throws {
        // A square fence 1 km a side at 60° N must be drawn square.
        let lat = 60.0, dLat = 1000 / 111_195.0, dLon = dLat / cos(lat * .pi / 180)
        let ring = [
            Coordinate(lat: lat, lon: 10), Coordinate(lat: lat, lon: 10 + dLon),
            Coordinate(lat: lat + dLat, lon: 10 + dLon), Coordinate(lat: lat + dLat, lon: 10),
            Coordinate(lat: lat, lon: 10),
        ]
        let fence = Fence(
            id: "sq", name: "square", shape: .polygons([Polygon(shell: Ring(ring), holes: [])]))
        let map = TrackMap(title: "square", track: ring, fences: [fence], markers: [])
        let e = try parse(map.svg())
        let d = try #require(e.all.first { $0.attributes["class"] == "fence" }?.attributes["d"])
        let numbers = d.split(whereSeparator: { !"0123456789.-".contains($0) }).compactMap {
            Double($0)
        }
        let xs = stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }
        let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
        let width = xs.max()! - xs.min()!, height = ys.max()! - ys.min()!
        #expect(abs(width / height - 1) < 0.01, "drawn \(width) × \(height)")
    }

    @Test func anHTMLPageHoldsTheSVGAndFetchesNothing() throws {
        let (map, _, _) = try bus()
        let html = map.html()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(!html.contains("src=") && !html.contains("href="))
    }

    @Test func everyKindOfFenceIsDrawnAsItsShape() throws {
        func ring(_ points: [(Double, Double)]) -> Ring {
            Ring(points.map { Coordinate(lat: $0.1, lon: $0.0) })
        }
        let yard = Fence(
            id: "yard", name: "yard",
            shape: .polygons([
                Polygon(
                    shell: ring([
                        (-8.66, 52.635), (-8.64, 52.635), (-8.64, 52.645), (-8.66, 52.645),
                        (-8.66, 52.635),
                    ]),
                    holes: [
                        ring([
                            (-8.655, 52.638), (-8.645, 52.638), (-8.645, 52.642), (-8.655, 52.642),
                            (-8.655, 52.638),
                        ])
                    ])
            ]))
        let depot = Fence(
            id: "depot", name: "depot",
            shape: .circle(center: Coordinate(lat: 52.655, lon: -8.62), radiusM: 400))
        let road = Fence(
            id: "road", name: "road",
            shape: .corridor(
                line: [Coordinate(lat: 52.65, lon: -8.67), Coordinate(lat: 52.66, lon: -8.65)],
                halfWidthM: 60))
        let track = [Coordinate(lat: 52.64, lon: -8.66), Coordinate(lat: 52.66, lon: -8.62)]
        let map = TrackMap(title: "kinds", track: track, fences: [yard, depot, road], markers: [])
        let e = try parse(map.svg())
        let fences = Dictionary(
            uniqueKeysWithValues: e.all.filter { $0.attributes["class"] == "fence" }.map {
                ($0.attributes["data-name"] ?? "", $0)
            })
        // The hole is a second subpath, cut out by the even-odd rule.
        let path = try #require(fences["yard"])
        #expect(path.name == "path" && path.attributes["fill-rule"] == "evenodd")
        #expect((path.attributes["d"] ?? "").filter { $0 == "Z" }.count == 2)
        // The circle at its radius: 400 m at the map's scale.
        let circle = try #require(fences["depot"])
        #expect(circle.name == "circle")
        let scale = map.frame().scale  // px per metre
        #expect(abs(scale - 1000 / (2 * 0.58 * 2698.4)) < 0.001)  // the track spans 2 698 m east-west
        #expect(abs((Double(circle.attributes["r"] ?? "") ?? 0) - 400 * scale) < 400 * scale * 0.02)
        // The corridor as a line as wide as the corridor.
        let line = try #require(fences["road"])
        #expect(line.name == "polyline")
        #expect(
            abs((Double(line.attributes["stroke-width"] ?? "") ?? 0) - 120 * scale) < 120 * scale
                * 0.02)
    }
}
