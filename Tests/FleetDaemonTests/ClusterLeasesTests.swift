import FleetModel
import FleetStorage
import FleetTracking
import Synchronization
import Testing

@testable import FleetDaemon

/// The lease schedule and hand-over rule, on a membership that records its
/// calls (the PostgreSQL membership itself is covered by the cluster's
/// end-to-end tests).
@Suite struct ClusterLeasesTests {
    /// A membership answering from fixed values and recording each renewal.
    final class Recorder: ClusterMembership, Sendable {
        let node = "n1"
        let leaseMs: Int64 = 10_000
        let wanted: [String]
        let held: Set<String>?
        let fails: Bool
        let renewals = Mutex<[(devices: Int, rate: Double)]>([])
        let acquired = Mutex<[[String]]>([])

        init(wanted: [String] = [], held: Set<String>? = nil, fails: Bool = false) {
            self.wanted = wanted
            self.held = held
            self.fails = fails
        }

        func acquire(_ devices: [String]) throws(StoreError) -> [String: ClusterResume] {
            acquired.withLock { $0.append(devices) }
            return Dictionary(
                uniqueKeysWithValues: devices.filter { $0 != "elsewhere" }.map {
                    ($0, ClusterResume(state: nil, fixes: []))
                })
        }

        func renew(devices: Int, fixesPerSecond: Double) throws(StoreError) -> (
            wanted: [String], held: Set<String>?
        ) {
            if fails {
                struct Down: Error {}
                throw StoreError(path: "cluster", action: "renew", underlying: Down())
            }
            renewals.withLock { $0.append((devices, fixesPerSecond)) }
            return (wanted, held)
        }

        func othersAlerts(afterId: Int64, limit: Int) throws(StoreError) -> [AlertRecord] { [] }
        func leave() throws(StoreError) {}
    }

    let t0: Int64 = 1_767_571_200_000

    @Test func renewsAtMostEveryFifthOfALease() throws {
        let m = Recorder()
        var leases = ClusterLeases(m)
        #expect(try leases.renewIfDue(nowMs: t0, devices: 3) { _ in nil } != nil)
        #expect(try leases.renewIfDue(nowMs: t0 + 1999, devices: 3) { _ in nil } == nil)
        #expect(try leases.renewIfDue(nowMs: t0 + 2000, devices: 3) { _ in nil } != nil)
        #expect(m.renewals.withLock { $0.count } == 2)
    }

    @Test func reportsTheRateOfFixesSinceTheLastRenewal() throws {
        let m = Recorder()
        var leases = ClusterLeases(m)
        _ = try leases.renewIfDue(nowMs: t0, devices: 0) { _ in nil }
        leases.tracked(3000)
        leases.tracked(1000)
        _ = try leases.renewIfDue(nowMs: t0 + 4000, devices: 7) { _ in nil }
        let last = try #require(m.renewals.withLock { $0.last })
        #expect(last.devices == 7)
        #expect(last.rate == 1000)
        #expect(leases.fixesSinceRenew == 0)
    }

    @Test func handsOverOnlyWantedDevicesQuietForASecond() throws {
        let m = Recorder(wanted: ["busy", "quiet", "gone"])
        var leases = ClusterLeases(m)
        let heard: [String: Int64] = ["busy": t0 - 999, "quiet": t0 - 1000]
        let r = try #require(try leases.renewIfDue(nowMs: t0, devices: 2) { heard[$0] })
        #expect(r.handOver == ["quiet", "gone"])
        #expect(r.held == nil)
    }

    @Test func passesOnWhatIsStillHeldAfterALapse() throws {
        let m = Recorder(held: ["a"])
        var leases = ClusterLeases(m)
        let r = try #require(try leases.renewIfDue(nowMs: t0, devices: 2) { _ in nil })
        #expect(r.held == ["a"])
    }

    @Test func aFailedRenewalWaitsItsTurnAndKeepsTheCount() throws {
        var leases = ClusterLeases(Recorder(fails: true))
        leases.tracked(10)
        #expect(throws: StoreError.self) {
            try leases.renewIfDue(nowMs: t0, devices: 1) { _ in nil }
        }
        #expect(leases.lastRenewMs == t0)
        #expect(leases.fixesSinceRenew == 10)
        #expect(try leases.renewIfDue(nowMs: t0 + 100, devices: 1) { _ in nil } == nil)
    }

    @Test func acquiresInOrderAndLeavesOutDevicesHeldElsewhere() throws {
        let m = Recorder()
        let leases = ClusterLeases(m)
        let taken = try leases.acquire(["b", "elsewhere", "a"])
        #expect(Set(taken.keys) == ["a", "b"])
        #expect(m.acquired.withLock { $0 } == [["a", "b", "elsewhere"]])
        #expect(try leases.acquire([]).isEmpty)
        #expect(m.acquired.withLock { $0.count } == 1)
    }
}
