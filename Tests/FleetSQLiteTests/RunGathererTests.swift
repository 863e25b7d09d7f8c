import Testing

@testable import FleetSQLite

/// The outbox's runs: consecutive ids gathered, a gap or `maxRun` ids
/// closing a run.
@Suite struct RunGathererTests {
    func gathered(_ ids: [Int64]) -> [ClosedRange<Int64>] {
        var g = WebhookSQL.RunGatherer()
        var runs = ids.compactMap { g.add($0) }
        if let last = g.run { runs.append(last) }
        return runs
    }

    @Test func gapsAndTheLengthLimitCloseRuns() {
        #expect(gathered([]) == [])
        #expect(gathered([5]) == [5...5])
        #expect(gathered([1, 2, 3, 5, 6, 9]) == [1...3, 5...6, 9...9])
        let n = WebhookSQL.maxRun
        #expect(
            gathered(Array(1...(2 * n + 1))) == [
                1...n, (n + 1)...(2 * n), (2 * n + 1)...(2 * n + 1),
            ])
    }
}
