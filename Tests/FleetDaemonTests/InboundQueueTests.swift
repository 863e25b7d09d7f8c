import FleetModel
import Testing

@testable import FleetDaemon

@Suite struct InboundQueueTests {
    func datagram(fixes: Int, at ms: Int64) -> Arrival {
        let fix = Fix(device: "d", time: ms, lat: 48, lon: 11)
        return Arrival(
            fixes: Array(repeating: fix, count: fixes), reply: nil, ack: .none, receivedMs: ms)
    }

    @Test func takesWhatFitsAndRefusesTheRest() {
        let q = InboundQueue(capacity: 10)
        #expect(q.offer([datagram(fixes: 4, at: 0), datagram(fixes: 4, at: 0)]) == 2)
        #expect(q.offer([datagram(fixes: 1, at: 0), datagram(fixes: 4, at: 0)]) == 1)
        #expect(q.depth == 9)
        let batch = q.take(maxFixes: 100, maxDelay: 0, idle: 0.1)
        #expect(batch?.count == 3)
        #expect(q.depth == 0)
    }

    @Test func refusesWhileTheOldestHasWaitedTooLong() {
        let q = InboundQueue(capacity: 1000, maxDelayMs: 1000)
        #expect(q.offer([datagram(fixes: 1, at: 10_000)]) == 1)
        #expect(q.offer([datagram(fixes: 1, at: 10_900)]) == 1)
        // The oldest waiting one was received 1 001 ms before this one.
        #expect(q.offer([datagram(fixes: 1, at: 11_001)]) == 0)
        _ = q.take(maxFixes: 100, maxDelay: 0, idle: 0.1)
        // Drained: taken again.
        #expect(q.offer([datagram(fixes: 1, at: 11_002)]) == 1)
    }

    /// A taken datagram is the taker's alone: the queue keeps nothing of it
    /// (an array taken from its front once kept every taken datagram's
    /// fixes and reply until half of it was taken).
    @Test func keepsNothingOfWhatWasTaken() {
        let q = InboundQueue(capacity: 10_000)
        weak var first: CommitWaiter?
        do {
            let w = CommitWaiter()
            first = w
            var a = datagram(fixes: 1, at: 0)
            a.ack = .waiter(w)
            #expect(q.offer([a] + (0..<3000).map { datagram(fixes: 1, at: Int64($0)) }) == 3001)
        }
        #expect(first != nil)
        do {
            let batch = q.take(maxFixes: 10, maxDelay: 0, idle: 0.1)
            #expect(batch?.count == 10)
        }
        // 2 991 still waiting behind it.
        #expect(q.depth == 2991)
        #expect(first == nil)
    }

    /// An arrival without fixes counts as one against the bound, so the
    /// ring's slots stay bounded too.
    @Test func anArrivalWithoutFixesCountsAsOne() {
        let q = InboundQueue(capacity: 3)
        #expect(q.offer((0..<5).map { datagram(fixes: 0, at: Int64($0)) }) == 3)
        #expect(q.depth == 3)
        #expect(q.take(maxFixes: 2, maxDelay: 0, idle: 0.1)?.count == 2)
    }
}
