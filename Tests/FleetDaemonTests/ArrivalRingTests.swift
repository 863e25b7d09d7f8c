import FleetModel
import Testing

@testable import FleetDaemon

@Suite struct ArrivalRingTests {
    func arrival(_ ms: Int64, waiter: CommitWaiter? = nil) -> Arrival {
        Arrival(
            fixes: [Fix(device: "d", time: ms, lat: 48, lon: 11)], reply: nil,
            ack: waiter.map(Acknowledgement.waiter) ?? .none, receivedMs: ms)
    }

    /// Arrivals come out in the order they went in, across wrap-arounds,
    /// and never more than the bound are held.
    @Test func keepsOrderAcrossWrapsAndHoldsNoMoreThanItsBound() {
        let ring = ArrivalRing(maxSlots: 3000)
        var next: Int64 = 0
        var expected: Int64 = 0
        for round in 0..<20 {
            let add = round % 2 == 0 ? 1700 : 900
            for _ in 0..<add where ring.hasRoom {
                ring.append(arrival(next))
                next += 1
            }
            #expect(ring.count <= 3000)
            #expect(ring.firstReceivedMs == (ring.isEmpty ? nil : expected))
            for _ in 0..<min(ring.count, 1100) {
                #expect(ring.removeFirst().receivedMs == expected)
                expected += 1
            }
        }
        while !ring.isEmpty {
            #expect(ring.removeFirst().receivedMs == expected)
            expected += 1
        }
        #expect(expected == next)
        #expect(next > 3000 * 3)
        #expect(ring.room == 3000)
        #expect(ring.firstFixCount == nil)
    }

    /// Under steady load with few waiting, the head goes round a small
    /// room: the slots beyond it are never written (never resident).
    @Test func aShallowQueueStaysInItsFirstRoom() {
        let ring = ArrivalRing(maxSlots: 150_000)
        for t in 0..<20_000 {
            ring.append(arrival(Int64(t)))
            if ring.count > 10 { #expect(ring.removeFirst().receivedMs == Int64(t - 10)) }
        }
        #expect(ring.room == 1024)
        // Filled while wrapped: grows by doubling, in order.
        for t in 20_000..<23_000 { ring.append(arrival(Int64(t))) }
        #expect(ring.room == 4096)
        var t: Int64 = 19_990
        while !ring.isEmpty {
            #expect(ring.removeFirst().receivedMs == t)
            t += 1
        }
        #expect(t == 23_000)
    }

    @Test func fullAtItsBound() {
        let ring = ArrivalRing(maxSlots: 2)
        ring.append(arrival(1))
        ring.append(arrival(2))
        #expect(!ring.hasRoom)
        #expect(ring.firstFixCount == 1)
        #expect(ring.firstReceivedMs == 1)
        _ = ring.removeFirst()
        #expect(ring.hasRoom)
    }

    /// What the ring still holds when it goes is let go of with it.
    @Test func letsGoOfWhatItHoldsWhenItGoes() {
        weak var kept: CommitWaiter?
        do {
            let ring = ArrivalRing(maxSlots: 4)
            let w = CommitWaiter()
            kept = w
            ring.append(arrival(1, waiter: w))
            #expect(kept != nil)
        }
        #expect(kept == nil)
    }
}
