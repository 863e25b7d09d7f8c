import FleetModel
import FleetStorage
import FleetTestSupport
import FleetTracking
import Foundation
import Testing

/// The commit path and the reads behind the API, the same on every backend.
@Suite(.serialized, .offPool) struct StoreBehaviourTests {
    func row(_ device: String, _ t: Int64, _ d: FixDisposition = .accepted) -> PositionRow {
        PositionRow(
            fix: Fix(
                device: device, time: t, lat: 48.1, lon: 11.5, speedKmh: 50, sats: 7, ignition: true
            ),
            disposition: d, receivedMs: t + 5)
    }

    @Test(arguments: BackendKind.allCases) func commitsAndReadsBack(_ kind: BackendKind)
        async throws
    {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        var b = WriteBatch()
        b.positions = [row("a", 1000), row("a", 2000), row("b", 1000), row("a", 2000, .duplicate)]
        b.alerts = [
            Alert(
                type: .geofenceEnter, device: "a", time: 2000, fence: "depot", lat: 48.1, lon: 11.5)
        ]
        b.states["a"] = DeviceState(
            lastTime: 2000, lat: 48.1, lon: 11.5, positionTime: 1500,
            fences: [
                FenceMembership(fence: "depot", phase: .inside(since: 1000)),
                FenceMembership(
                    fence: "zone 2", phase: .exiting(enteredAt: 500, since: 1900, fixes: 2)),
                FenceMembership(fence: "zone 3", phase: .entering(since: 2000)),
            ])
        try w.commit(b, committedMs: 3000)

        let r = try db.reader()
        let ps = try r.positions(device: "a")
        #expect(ps.map(\.fix.time) == [1000, 2000])
        #expect(
            ps[0].fix.speedKmh == 50 && ps[0].fix.sats == 7 && ps[0].fix.ignition == true
                && ps[0].fix.valid)
        let alerts = try r.alerts()
        #expect(alerts.map(\.id) == [1])
        #expect(
            alerts[0].fence == "depot" && alerts[0].device == "a"
                && alerts[0].type == "geofence_enter")
        #expect(try r.counts() == (positions: 3, alerts: 1, devices: 2))

        // A resent fix (same device and time) is stored once.
        var again = WriteBatch()
        again.positions = [row("a", 2000)]
        try w.commit(again, committedMs: 4000)
        #expect(try r.positions(device: "a").count == 2)

        // State survives reopening.
        let w2 = try db.store()
        let reloaded = try w2.loadStates()
        #expect(reloaded["a"] == b.states["a"])
    }

    /// Alerts of a range of device ids (byte order, both ends included),
    /// with the other filters.
    @Test(arguments: BackendKind.allCases) func alertsOfARangeOfDevices(_ kind: BackendKind)
        async throws
    {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        var b = WriteBatch()
        let ids = ["A-1", "a-1", "a-2", "b", "b-1", "c", "é"]
        b.positions = ids.map { row($0, 1000) }
        b.alerts = ids.flatMap { id in
            [1000, 5000].map {
                Alert(type: .geofenceEnter, device: id, time: $0, fence: "f", lat: 48, lon: 11)
            }
        }
        try w.commit(b, committedMs: 6000)
        let r = try db.reader()
        func devices(_ range: ClosedRange<String>, until: Int64? = nil) throws -> [String] {
            try r.alerts(
                afterId: 0, limit: 100, filter: AlertFilter(untilMs: until, devices: range)
            )
            .map(\.device)
        }
        #expect(try devices("a-1"..."b") == ["a-1", "a-1", "a-2", "a-2", "b", "b"])
        #expect(try devices("b"..."é", until: 2000) == ["b", "b-1", "c", "é"])
        #expect(try devices("A"..."Z") == ["A-1", "A-1"])
        #expect(try devices("d"..."e").isEmpty)
    }

    /// Rows are inserted 16 to a statement and the rest one by one: every
    /// count, with duplicates skipped anywhere and resent rows ignored
    /// inside a group, stores each row once, with its own values.
    @Test(arguments: BackendKind.allCases, [1, 15, 16, 17, 40])
    func manyRowsAtOnceAreEachStoredOnce(_ kind: BackendKind, _ n: Int) async throws {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        var first = WriteBatch()
        first.positions = [row("b", 1_000)]  // resent below, inside a group
        try w.commit(first, committedMs: 1)
        var b = WriteBatch()
        var expected: [String: [Int64]] = [:]
        for k in 0..<n {
            let device = ["a", "b", "c"][k % 3]
            let t = Int64(1_000 + k / 3 * 1_000)
            b.positions.append(row(device, t, k % 7 == 3 ? .duplicate : .accepted))
            if k % 7 != 3 { expected[device, default: []].append(t) }
            var st = DeviceState(
                lastTime: t, lat: 48 + Double(k) / 100, lon: 11,
                fences: [
                    FenceMembership(fence: "f\(k)", phase: .inside(since: t))
                ])
            st.odometerM = Double(k)
            b.states["s\(k)"] = st
        }
        try w.commit(b, committedMs: 2)
        let r = try db.reader()
        for device in ["a", "b", "c"] {
            let stored = try r.positions(device: device)
            var want = Set(expected[device] ?? [])
            if device == "b" { want.insert(1_000) }
            #expect(stored.map(\.fix.time) == want.sorted(), "device \(device)")
            for p in stored {
                #expect(p.fix.lat == 48.1 && p.fix.speedKmh == 50 && p.fix.sats == 7)
            }
        }
        let states = try db.store().loadStates()
        #expect(states.count == n)
        for (id, st) in b.states { #expect(states[id] == st, "state \(id)") }
    }

    @Test(arguments: BackendKind.allCases) func alertIdsIncreaseAcrossCommits(_ kind: BackendKind)
        async throws
    {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        for i in 0..<5 {
            var b = WriteBatch()
            b.alerts = [
                Alert(type: .geofenceExit, device: "d", time: Int64(i), fence: "f", lat: 0, lon: 0)
            ]
            try w.commit(b, committedMs: 0)
        }
        let r = try db.reader()
        #expect(try r.alerts(afterId: 2).map(\.id) == [3, 4, 5])
        #expect(try r.lastAlertId() == 5)
        // Newest first: before an id, after another, filtered, limited.
        let all = AlertFilter()
        #expect(
            try r.alerts(afterId: 0, beforeId: .max, newestFirst: true, limit: 2, filter: all).map(
                \.id) == [5, 4])
        #expect(
            try r.alerts(afterId: 1, beforeId: 4, newestFirst: true, limit: 10, filter: all).map(
                \.id) == [3, 2])
        #expect(
            try r.alerts(
                afterId: 0, beforeId: .max, newestFirst: true, limit: 10,
                filter: AlertFilter(fence: "f")
            )
            .map(\.id) == [5, 4, 3, 2, 1])
        #expect(
            try r.alerts(
                afterId: 0, beforeId: .max, newestFirst: true, limit: 10,
                filter: AlertFilter(sinceMs: 3)
            )
            .map(\.id) == [5, 4])
        #expect(
            try r.alerts(afterId: 0, beforeId: 1, newestFirst: true, limit: 10, filter: all).isEmpty
        )
        #expect(
            try r.alerts(afterId: 1, beforeId: 4, newestFirst: false, limit: 10, filter: all).map(
                \.id)
                == [2, 3])
    }

    /// Alerts go 16 to a statement, the rest one by one: the ids the commit
    /// hands the sinks are the ids stored, row for row.
    @Test(arguments: BackendKind.allCases, [1, 15, 16, 17, 37])
    func committedAlertsCarryTheirStoredIds(_ kind: BackendKind, _ n: Int) async throws {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        var committed: [AlertRecord] = []
        for round in 0..<2 {
            var b = WriteBatch()
            b.alerts = (0..<n).map { i in
                Alert(
                    type: i % 2 == 0 ? .geofenceEnter : .geofenceExit, device: "d\(i % 3)",
                    time: Int64(round * 1000 + i), fence: "f\(i)", lat: Double(i), lon: 0,
                    durationS: i % 2 == 0 ? nil : Double(i))
            }
            committed += try w.commit(b, committedMs: 0)
        }
        let stored = try db.reader().alerts(
            afterId: 0, limit: 1000, filter: AlertFilter())
        #expect(committed.map(\.id) == Array(1...Int64(2 * n)))
        #expect(committed == stored)
    }

    /// Rows without device extras go in by a statement of their own, 16
    /// to a statement like the others: a batch that mixes the two kinds in
    /// runs of every length (a duplicate among them) stores every row once,
    /// each with its own extras or none.
    @Test(arguments: BackendKind.allCases, [1, 15, 16, 17, 40])
    func rowsWithAndWithoutExtrasKeepTheirOwn(_ kind: BackendKind, _ run: Int) async throws {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        var b = WriteBatch()
        var signals: [Int?] = []
        var t: Int64 = 1000
        for r in 0..<5 {
            for k in 0..<run {
                var p = row("a", t)
                if r % 2 == 1 {
                    var x = FixExtra()
                    x.gsmSignal = Int(t / 1000 % 5)
                    p.fix.extra = x
                }
                b.positions.append(p)
                signals.append(p.fix.extra?.gsmSignal)
                if k == run / 2 { b.positions.append(row("a", t, .duplicate)) }
                t += 1000
            }
        }
        try w.commit(b, committedMs: 0)
        let stored = try db.reader().positions(device: "a", limit: 1000)
            .sorted { $0.fix.time < $1.fix.time }
        let times: [Int64] = (0..<5 * run).map { Int64(1000 + 1000 * $0) }
        #expect(stored.map(\.fix.time) == times)
        #expect(stored.map(\.fix.extra?.gsmSignal) == signals)
        #expect(stored.filter { $0.fix.extra == nil }.allSatisfy { $0.fix.sats == 7 })
    }

    @Test(arguments: BackendKind.allCases)
    func fixesAfterTheStateCheckpointComeBackInTimeOrderWithoutLateOnes(_ kind: BackendKind)
        async throws
    {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        var b = WriteBatch()
        b.positions = [
            row("a", 1000), row("a", 2000), row("a", 4000), row("a", 3000, .late),
            row("a", 5000, .invalid), row("a", 6000, .jump), row("b", 1000), row("b", 2000),
            row("c", 1000),
        ]
        // a's state is checkpointed at 2 s, c's at 1 s; b has none.
        b.states["a"] = DeviceState(lastTime: 2000, lat: 48.1, lon: 11.5, fences: [])
        b.states["c"] = DeviceState(lastTime: 1000, lat: 48.1, lon: 11.5, fences: [])
        try w.commit(b, committedMs: 7000)
        let states = try w.loadStates()
        var seen: [String: [Int64]] = [:]
        try w.forEachFixAfterCheckpoint(states) { device, fixes in
            seen[device] = fixes.map(\.time)
            #expect(fixes.allSatisfy { $0.device == device && $0.speedKmh == 50 })
            #expect(fixes.map(\.ignition) == fixes.map { _ in true })
        }
        #expect(seen == ["a": [4000, 5000, 6000], "b": [1000, 2000]])
    }

    @Test(arguments: BackendKind.allCases) func retentionDeletesOldPositionsInBoundedRounds(
        _ kind: BackendKind
    ) async throws {
        let db = try await Backend.fresh(kind)
        let w = try db.store()
        var b = WriteBatch()
        for device in ["a", "b", "c"] {
            for t in 0..<10 { b.positions.append(row(device, Int64(t) * 1000)) }
        }
        b.alerts = [Alert(type: .geofenceEnter, device: "a", time: 0, fence: "f", lat: 0, lon: 0)]
        try w.commit(b, committedMs: 0)
        let r = try db.reader()
        // At most 4 rows a call; fix times before 6 s are expired (6 per device, 18 in all).
        var rounds = 0
        var total = 0
        while true {
            let n = try w.prune(before: 6000, maxRows: 4)
            #expect(n <= 4)
            if n == 0 { break }
            total += n
            rounds += 1
            #expect(rounds < 20)
        }
        #expect(total == 18)
        for device in ["a", "b", "c"] {
            #expect(try r.positions(device: device).map(\.fix.time) == [6000, 7000, 8000, 9000])
        }
        #expect(try r.alerts().count == 1)  // alerts are kept
    }
}
