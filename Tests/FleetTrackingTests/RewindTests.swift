import FleetGeo
import FleetModel
import Foundation
import Testing

@testable import FleetTracking

/// Fixes that arrive after newer ones: within the reorder window, or
/// filling a gap that a newer fix ended (a backlog sent newest first), they
/// are tracked in their place, and the alerts and trips come out as they
/// would in fix-time order, each once; older ones stay late.
@Suite struct RewindTests {
    /// A drive east through the 200 m yard along 48° N + 100 m, a fix every
    /// 5 s 50 m apart (four of them inside), then parked four minutes at
    /// the end (the trip ends).
    static let drive: [Fix] = {
        var out: [Fix] = []
        for k in 0..<28 {
            out.append(
                Fix(
                    device: "v", time: Int64(k) * 5000, lat: 48 + 100 * mLat,
                    lon: 11 + Double(-575 + 50 * k) * mLon))
        }
        for k in 28..<76 {
            out.append(
                Fix(device: "v", time: Int64(k) * 5000, lat: 48 + 100 * mLat, lon: 11 + 775 * mLon))
        }
        return out
    }()

    struct Run {
        var alerts: [String] = []
        var trips: [String] = []
        var dispositions: [FixDisposition] = []
    }

    /// Tracks `fixes` in the given order through the rewinding entry point.
    func run(_ fixes: [Fix], window: Double = 5) -> Run {
        var settings = TrackerSettings()
        settings.reorderWindowS = window
        var tracker = Tracker(fences: FenceIndex(fences: [yard()]), settings: settings)
        var state: DeviceState?
        var rewind: Rewind?
        var r = Run()
        for f in fixes {
            let o = tracker.process(f, state: &state, rewind: &rewind)
            r.dispositions.append(o.disposition)
            r.alerts += o.alerts.map { "\($0.type.rawValue) \($0.fence ?? "-") \($0.time)" }
            r.trips += o.trips.map { "\($0.start.time)-\($0.end.time) \(Int($0.distanceM))" }
        }
        r.alerts.sort()
        r.trips.sort()
        return r
    }

    @Test func inOrderTheRewindChangesNothing() {
        let plain = run(Self.drive, window: 0)
        let rewinding = run(Self.drive)
        #expect(plain.alerts == rewinding.alerts)
        #expect(plain.trips == rewinding.trips)
        // Crossed in between fixes 11 and 12.
        #expect(plain.alerts.contains("geofence_enter yard 57500"))
        #expect(plain.trips.count == 1)
    }

    /// Every second pair of datagrams swapped by the network (each fix at
    /// most 5 s older than the newest): the same alerts and trip. The pair (12, 13) is swapped and 12 is the first fix inside,
    /// 13 the second: 13 raised the entry, dated where the way from 11
    /// crossed in; placing 12 raises no second one (an alert raised keeps
    /// its first time).
    @Test func swappedDatagramsAreTrackedInTheirPlace() {
        var swapped = Self.drive
        for k in stride(from: 4, to: swapped.count - 1, by: 4) { swapped.swapAt(k, k + 1) }
        let want = run(Self.drive)
        let got = run(swapped)
        // The device's first swap finds no rewind (it keeps none while its
        // datagrams come in order): that fix is late; the later ones are
        // put in place.
        #expect(got.dispositions.filter { $0 == .late }.count == 1)
        #expect(got.alerts == want.alerts)
        #expect(got.trips == want.trips)
        // With no window, every swapped fix is late (stored, not tracked).
        // On this straight drive the entry is still dated where the way
        // crossed in: the way from fix 11 to 13 crosses where 11 to 12 did.
        let none = run(swapped, window: 0)
        #expect(none.dispositions.filter { $0 == .late }.count == 18)
        #expect(none.alerts == want.alerts)
    }

    /// Out of coverage from the fourth fix to the 22nd: the device sends the
    /// fix that ends the gap first, then its backlog newest first, five
    /// records to a datagram: the visit to the yard inside the gap is
    /// raised once and the trip is whole. (The fix that ended the gap
    /// already inferred the visit from the chord across the yard, dated
    /// where the chord crosses its middle; those alerts stand.)
    @Test func aBacklogSentNewestFirstFillsItsGap() {
        let d = Self.drive
        var order = Array(d[0..<3]) + [d[21]]
        var backlog = Array(d[3..<21])
        while !backlog.isEmpty {
            let packet = backlog.suffix(5)
            backlog.removeLast(packet.count)
            order += packet.reversed()
        }
        order += d[22...]
        let want = run(d)
        let got = run(order)
        #expect(got.alerts.count == want.alerts.count)
        #expect(got.alerts.filter { $0.hasPrefix("geofence_enter yard") }.count == 1)
        #expect(got.alerts.filter { $0.hasPrefix("geofence_exit yard") }.count == 1)
        #expect(got.trips == want.trips)
        #expect(!got.dispositions.contains(.late))
        // With no window, the backlog is late (stored, not tracked).
        let none = run(order, window: 0)
        #expect(none.dispositions.filter { $0 == .late }.count == 18)
    }

    /// A device never heard before whose first fix is its live record, its
    /// buffer (all older) sent after it oldest first in packets of five:
    /// tracked in fix-time order, as if it had all come in order.
    @Test func aNewDevicesBufferBehindItsLiveRecordIsTrackedInOrder() {
        let d = Self.drive
        let order = [d[40]] + Array(d[0..<40]) + Array(d[41...])
        let want = run(d)
        let got = run(order)
        // Each alert once. The enter and exit are raised when the first
        // buffered fix arrives (the way from it to the live record crosses
        // the yard) and keep those times; the trip comes out whole.
        func kinds(_ r: Run) -> [String] {
            r.alerts.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        }
        #expect(kinds(got) == kinds(want))
        #expect(got.trips == want.trips)
        #expect(!want.trips.isEmpty)
        #expect(!got.dispositions.contains(.late))
        // With no window (no rewind at all), the buffer is late.
        let none = run(order, window: 0)
        #expect(none.dispositions.filter { $0 == .late }.count == 40)
    }

    /// A new device whose second fix is in order keeps no rewind: the
    /// memory goes only where a buffer follows the first fix.
    @Test func aNewDeviceInOrderKeepsNothingAfterItsSecondFix() {
        var tracker = Tracker(fences: FenceIndex(fences: [yard()]))
        var state: DeviceState?
        var rewind: Rewind?
        _ = tracker.process(Self.drive[0], state: &state, rewind: &rewind)
        #expect(rewind?.fixes.count == 1)
        #expect(rewind?.base == nil)
        _ = tracker.process(Self.drive[1], state: &state, rewind: &rewind)
        #expect(rewind == nil)
    }

    /// A fix more than the window older than the newest, with no gap to
    /// fill, is late; a resend of a fix kept in the rewind is a duplicate.
    @Test func olderThanTheWindowIsLateAndResendsAreDuplicates() {
        let d = Self.drive
        // 7 is 10 s older than the newest: late. 9 is the newest: a resend.
        // 8 is within the window, but the device kept nothing (its fixes
        // came in order): late, and from now on it keeps them, so 11 after
        // 12 is put in place and a resend of 11 is a duplicate.
        let r = run(Array(d[0..<10]) + [d[7], d[9], d[8], d[10], d[12], d[11], d[11]])
        #expect(
            r.dispositions.suffix(7) == [
                .late, .duplicate, .late, .accepted, .accepted, .accepted, .duplicate,
            ])
    }
}
