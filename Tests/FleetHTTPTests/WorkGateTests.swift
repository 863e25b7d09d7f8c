import Synchronization
import Testing

@testable import FleetHTTP

/// The gate of costly work: `concurrent` at once, `waiting` in line, the
/// rest refused at once; a place freed goes to the first in line.
@Suite struct WorkGateTests {
    @Test func beyondTheLineAJobIsRefusedAtOnce() async throws {
        let gate = WorkGate(concurrent: 1, waiting: 1)
        let (holding, hold) = AsyncStream.makeStream(of: Void.self)
        let started = Mutex(0)
        let first = Task {
            try await gate.run {
                started.withLock { $0 += 1 }
                for await _ in holding { break }
                return 1
            }
        }
        while started.withLock({ $0 }) == 0 { await Task.yield() }
        let second = Task { try await gate.run { 2 } }
        // The second waits in line: the third finds the line full.
        while gate.inLine == 0 { await Task.yield() }
        let third = try await gate.run { 3 }
        #expect(third == nil, "a third job was not refused")
        hold.yield()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(try await gate.run { 4 } == 4)
    }
}
