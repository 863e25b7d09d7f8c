import Testing

@testable import FleetTracking

/// `Alert.detailsJSON`: what the alerts' `details` column and every
/// consumer reads; members in a fixed order, numbers and text as RFC 8259
/// writes them.
@Suite struct AlertDetailsJSONTests {
    private func alert(
        durationS: Double? = nil, crossed: Bool = false, backlog: Bool = false,
        details: [AlertDetail] = []
    ) -> Alert {
        var a = Alert(
            type: .geofenceExit, device: "d1", time: 0, fence: "f", lat: 0, lon: 0,
            durationS: durationS, crossed: crossed, details: details)
        a.backlog = backlog
        return a
    }

    @Test func noDetailsIsNil() {
        #expect(alert().detailsJSON == nil)
    }

    @Test func flagsAlone() {
        #expect(alert(crossed: true).detailsJSON == #"{"crossed":true}"#)
        #expect(alert(backlog: true).detailsJSON == #"{"backlog":true}"#)
        #expect(
            alert(crossed: true, backlog: true).detailsJSON == #"{"crossed":true,"backlog":true}"#)
    }

    @Test func everyMemberInOrder() {
        let a = alert(
            durationS: 12.5, crossed: true, backlog: true,
            details: [AlertDetail("fence_name", "Yard"), AlertDetail("speed_kmh", 88)])
        #expect(
            a.detailsJSON
                == #"{"duration_s":12.5,"crossed":true,"backlog":true,"fence_name":"Yard","speed_kmh":88}"#
        )
    }

    @Test func numbersKeepThreeDecimalsAndIntegersNone() {
        let a = alert(details: [
            AlertDetail("a", 1.23456), AlertDetail("b", -7), AlertDetail("c", 0.0004),
            AlertDetail("d", 1e16),
        ])
        #expect(a.detailsJSON == #"{"a":1.235,"b":-7,"c":0,"d":1e+16}"#)
    }

    @Test func textIsEscaped() {
        let a = alert(details: [AlertDetail("fence_name", "Gate \"A\"\\\n\u{1}é")])
        #expect(a.detailsJSON == #"{"fence_name":"Gate \"A\"\\\n\u0001é"}"#)
    }
}
