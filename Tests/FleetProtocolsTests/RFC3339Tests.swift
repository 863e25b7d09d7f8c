import FleetModel
import Testing

@testable import FleetProtocols

@Suite struct RFC3339Tests {
    func parse(_ s: String) -> Int64? { RFC3339.parse(Array(s.utf8)) }

    @Test func parsesZonesAndFractions() {
        #expect(parse("1970-01-01T00:00:00Z") == 0)
        #expect(parse("2000-01-01T00:00:00Z") == 946_684_800_000)
        #expect(parse("2024-02-29T23:59:59.999Z") == 1_709_251_199_999)
        #expect(parse("2024-02-29t23:59:59.9999999z") == 1_709_251_199_999)
        #expect(parse("2024-03-01 01:00:00+01:00") == 1_709_251_200_000)
        #expect(parse("2024-02-29T19:30:00-04:30") == 1_709_251_200_000)
        #expect(parse("1969-12-31T23:59:59Z") == -1000)
    }

    @Test(arguments: [
        "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-01-01T24:00:00Z",
        "2024-01-01T00:00:00",
        "2024-01-01T00:00:00+0100", "2024-01-01T00:00:00.Z", "24-01-01T00:00:00Z",
        "2024-01-01T00:00:00Zjunk",
    ])
    func rejectsMalformed(_ s: String) { #expect(parse(s) == nil) }

    @Test func formatRoundTrips() {
        for ms: Int64 in [0, 1, 999, 946_684_800_000, 1_709_251_199_999, -1000, 4_102_444_800_123] {
            #expect(parse(RFC3339.format(millis: ms)) == ms)
        }
        #expect(RFC3339.format(millis: 1_709_251_199_999) == "2024-02-29T23:59:59.999Z")
    }
}
