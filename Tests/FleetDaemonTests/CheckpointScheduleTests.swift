import Testing

@testable import FleetDaemon

/// The checkpoint schedule alone: due by age, oldest first, bounded per call.
@Suite struct CheckpointScheduleTests {
    @Test func statesComeDueInTheOrderTheyChangedAndAtMostLimitAtATime() {
        var s = CheckpointSchedule(intervalMs: 10_000)
        for (k, d) in ["a", "b", "c", "d"].enumerated() { s.queue(d, at: Int64(k) * 1000) }
        var written: [String] = []
        // At 11 s, a (0 s) and b (1 s) are due; c (2 s) is not yet.
        s.takeDue(nowMs: 11_000, all: false, limit: 10) {
            written.append($0); return true
        }
        #expect(written == ["a", "b"] && s.waiting == 2)
        // A limit of one, and a device with nothing to write does not count.
        written = []
        s.takeDue(nowMs: 20_000, all: false, limit: 1) { d in
            written.append(d)
            return d != "c"
        }
        #expect(written == ["c", "d"] && s.waiting == 0)
        // At shutdown, everything, due or not.
        s.queue("e", at: 30_000)
        written = []
        s.takeDue(nowMs: 30_000, all: true, limit: 10) {
            written.append($0); return true
        }
        #expect(written == ["e"])
    }

    @Test func anIntervalOfZeroQueuesNothingToWrite() {
        var s = CheckpointSchedule(intervalMs: 0)
        s.queue("a", at: 0)
        var called = false
        s.takeDue(nowMs: .max, all: true, limit: 10) { _ in
            called = true
            return true
        }
        #expect(!called)
    }

    @Test func theQueueIsCompactedAsItDrains() {
        var s = CheckpointSchedule(intervalMs: 1)
        for k in 0..<10_000 { s.queue("d\(k)", at: Int64(k)) }
        var n = 0
        s.takeDue(nowMs: 20_000, all: false, limit: 6_000) { _ in
            n += 1
            return true
        }
        #expect(n == 6_000 && s.waiting == 4_000)
        s.takeDue(nowMs: 20_000, all: false, limit: 10_000) { _ in
            n += 1
            return true
        }
        #expect(n == 10_000 && s.waiting == 0)
    }
}
