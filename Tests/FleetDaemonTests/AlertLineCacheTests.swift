import FleetStorage
import Testing

@testable import FleetDaemon

/// The deliveries' cache of alert JSON: a batch is served from it only
/// when every one of its alerts was read within `maxAgeMs`.
@Suite struct AlertLineCacheTests {
    func alerts(_ ids: ClosedRange<Int64>) -> [AlertRecord] {
        ids.map {
            AlertRecord(
                id: $0, time: 1000 + $0, device: "truck-\($0)", type: "geofence_enter",
                fence: "depot", lat: 48, lon: 11, details: nil)
        }
    }

    @Test func aBatchJustReadIsServedWholeAndInOrder() {
        let cache = AlertLineCache()
        let read = alerts(10...19)
        #expect(cache.keep(read, nowMs: 5000) == read.map(\.jsonLine))
        #expect(cache.lines(10...19, nowMs: 5000) == read.map(\.jsonLine))
        #expect(
            cache.lines(12...14, nowMs: 5000 + AlertLineCache.maxAgeMs)
                == read[2...4].map(\.jsonLine))
    }

    @Test func oneAlertNotReadOrReadTooLongAgoMeansReadingAgain() {
        let cache = AlertLineCache()
        cache.keep(alerts(10...19), nowMs: 5000)
        #expect(cache.lines(10...20, nowMs: 5000) == nil)
        #expect(cache.lines(9...19, nowMs: 5000) == nil)
        #expect(cache.lines(10...19, nowMs: 5001 + AlertLineCache.maxAgeMs) == nil)
        // Read again (an acknowledgement made meanwhile would show): served again.
        let again = alerts(10...19).map { a -> AlertRecord in
            var a = a
            a.ackedBy = "ops"
            a.ackedMs = 6000
            return a
        }
        cache.keep(again, nowMs: 7000)
        #expect(cache.lines(10...19, nowMs: 7000) == again.map(\.jsonLine))
        #expect(cache.lines(10...10, nowMs: 7000)?.first?.contains("\"acked_by\":\"ops\"") == true)
    }

    @Test func aNewerAlertTakesAnOlderOnesSlot() {
        let cache = AlertLineCache()
        let n = Int64(AlertLineCache.capacity)
        cache.keep(alerts(1...1), nowMs: 5000)
        cache.keep(alerts((1 + n)...(1 + n)), nowMs: 5000)
        #expect(cache.lines(1...1, nowMs: 5000) == nil)
        #expect(cache.lines((1 + n)...(1 + n), nowMs: 5000) != nil)
        #expect(cache.lines(1...(n + 2), nowMs: 5000) == nil)  // more than it holds
    }
}
