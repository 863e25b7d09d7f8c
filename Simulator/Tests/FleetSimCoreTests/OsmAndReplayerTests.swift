import FleetSimCore
import Testing

@Suite struct OsmAndReplayerTests {
    @Test func aPositionIsSentAsTraccarClientSendsIt() {
        let p = RoutePoint(
            lat: 48.1, lon: 11.5, time: 1_700_000_000_250, speedMps: 5.14444, altM: 520)
        let target = OsmAndReplayer.target(device: "phone-1", point: p)
        #expect(target.hasPrefix("/?id=phone-1&timestamp=1700000000&lat=48.1&lon=11.5&speed="))
        // m/s → knots, as the app converts Android's speed.
        let knots = Double(
            target.split(separator: "&").first { $0.hasPrefix("speed=") }!.dropFirst(6))!
        #expect(abs(knots - 10) < 1e-6)
        #expect(target.hasSuffix("&altitude=520.0"))
    }
}
