import Foundation
import Testing

@testable import FleetSimCore

@Suite struct RouteFileTests {
    let routes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../routes")

    @Test func csvAndGpxOfTheSameRouteAgree() throws {
        let csv = try RouteFile.load(routes.appendingPathComponent("t02_visnjan_car.csv").path)
        let gpx = try RouteFile.load(routes.appendingPathComponent("t02_visnjan_car.gpx").path)
        #expect(csv.device == "t02_visnjan_car")
        #expect(csv.points.count == 104)
        #expect(gpx.points.count == 104)
        for (a, b) in zip(csv.points, gpx.points) {
            #expect(a.time == b.time)
            #expect(abs(a.lat - b.lat) < 1e-6 && abs(a.lon - b.lon) < 1e-6)
        }
        #expect(gpx.points[0].altM == 211.15)
    }

    @Test func loadsEveryBundledRoute() throws {
        #expect(
            try RouteFile.load(routes.appendingPathComponent("t01_munich_car_1hz.csv").path).points
                .count == 1194)
        #expect(
            try RouteFile.load(routes.appendingPathComponent("t03_limerick_bus304.gpx").path).points
                .count == 2144)
    }

    @Test func csvErrorsNameTheLine() {
        do {
            _ = try RouteFile.csv(
                "lat,lon,time\n1,2,2020-01-01T00:00:00Z\n1,nope,2020-01-01T00:00:01Z\n",
                file: "r.csv")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "r.csv:3: lon \"nope\" is not a longitude")
        }
    }

    @Test func encodesFixesTheDaemonReads() {
        let s = FixEncoder.json(
            device: "v", point: RoutePoint(lat: 1.5, lon: 2, time: 1000, speedMps: 10), seq: 3)
        #expect(s == #"{"device":"v","time":1000,"lat":1.5,"lon":2.0,"speed":36.0,"seq":3}"#)
    }
}
