import Foundation
import Testing

@testable import FleetGeo

/// What a fences document may hold: each limit named when passed.
@Suite struct FenceLimitsTests {
    static func square(_ id: String, vertices n: Int) -> Fence {
        var xs: [Double] = []
        var ys: [Double] = []
        for k in 0..<n {
            let t = Double(k) / Double(n) * 2 * Double.pi
            xs.append(cos(t))
            ys.append(sin(t))
        }
        xs.append(xs[0])
        ys.append(ys[0])
        return Fence(
            id: id, name: id,
            shape: .polygons([
                Polygon(shell: Ring(zip(xs, ys).map { Coordinate(lat: $1, lon: $0) }), holes: [])
            ]))
    }

    @Test func eachLimitIsNamedWhenPassed() {
        let limits = FenceLimits(maxFences: 3, maxVertices: 100, maxFenceVertices: 40)
        #expect(
            limits.problems([Self.square("a", vertices: 40), Self.square("b", vertices: 40)])
                .isEmpty)
        let one = limits.problems([Self.square("a", vertices: 41)])
        #expect(one.map(\.description).count == 1)
        #expect(one.first?.message == "41 vertices, more than geofences.max_fence_vertices = 40")
        #expect(one.first?.featureIndex == 0 && one.first?.id == "a")
        let all = limits.problems((0..<4).map { Self.square("f\($0)", vertices: 30) })
        #expect(
            all.map(\.message) == [
                "4 fences, more than geofences.max_fences = 3",
                "120 vertices in all, more than geofences.max_vertices = 100",
            ])
    }

    @Test func atMostTenFencesAreListedOneByOne() {
        let limits = FenceLimits(maxFences: 100, maxVertices: 10_000, maxFenceVertices: 4)
        let p = limits.problems((0..<15).map { Self.square("f\($0)", vertices: 5) })
        #expect(p.count == 11)
        #expect(p.last?.message == "5 more fences over geofences.max_fence_vertices")
    }
}
