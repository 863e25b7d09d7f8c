import FleetTracking
import Testing

/// The binary stored state: every part round-trips bit for bit, and a value
/// that is damaged or of another version is refused, never half-read.
@Suite struct DeviceStateCodecTests {
    static func wp(_ t: Int64, _ k: Double) -> Waypoint {
        Waypoint(
            time: t, lat: 48 + k / 1000, lon: 11 - k / 700, odometerM: k * 13.25, fixNo: Int64(k))
    }

    /// States exercising every tag: each motion, trip and membership phase,
    /// suspects, overspeed with and without its end, NaN and negative values.
    static var samples: [DeviceState] {
        var a = DeviceState(
            lastTime: 1_718_000_000_000, lat: 48.137_154_3, lon: 11.576_124_9,
            positionTime: 1_717_999_999_000,
            fences: [
                FenceMembership(fence: "depot", phase: .inside(since: 1_717_000_000_000)),
                FenceMembership(fence: "zone-é", phase: .entering(since: 1_718_000_000_000)),
                FenceMembership(
                    fence: "z", phase: .exiting(enteredAt: 5, since: 1_718_000_000_001, fixes: 3)),
            ])
        a.odometerM = 123_456.789
        a.accepted = 4242
        a.seq = 4300
        a.motion = .still(
            lat: 48.1, lon: 11.5, weight: 100, rest: wp(1_717_000_000_000, 1),
            pending: wp(1_718_000_000_000, 2))
        a.trip = .parked(anchor: wp(1_716_000_000_000, 3), lastNear: wp(1_718_000_000_000, 4))
        a.suspects = [
            Suspect(time: 1_718_000_000_500, lat: 50, lon: 12, seq: 4299),
            Suspect(time: 1_718_000_000_900, lat: -33.9, lon: 151.2, seq: 4300),
        ]
        a.overspeed = OverspeedEpisode(
            since: 1_717_999_000_000, maxKmh: 131.5, limitKmh: 90, announced: true,
            underSince: 1_717_999_990_000)
        a.silent = true
        a.ignition = true
        a.ignitionSince = 1_717_000_000_500
        a.idle = IdleEpisode(since: 1_717_000_000_500, announced: true)
        a.driver = "0123456789ABCDEF"
        var b = DeviceState(lastTime: -5, lat: .nan, lon: .nan, fences: [])
        b.motion = .moving(
            rest: wp(-10, 5),
            stay: Motion.Stay(dLat: 1e-7, dLon: -3e-7, count: 7, recentLat: 2e-8, recentLon: -1e-9))
        b.window = SpeedWindow(
            since: -9_000, odometerM: 1234.5, reportedKmhMs: 456_789.25, reportedMs: 9_000)
        b.trip = .driving(start: wp(-100, 6), candidate: wp(-7, 7), maxSpeedKmh: 88.8)
        b.overspeed = OverspeedEpisode(since: -6, maxKmh: 100, limitKmh: 50)
        b.ignition = false
        b.ignitionSince = -50
        b.idle = IdleEpisode(since: -40)
        let c = DeviceState(lastTime: .max, lat: -90, lon: 180, positionTime: .min, fences: [])
        return [a, b, c]
    }

    static func roundTrip(_ s: DeviceState) -> DeviceState? {
        DeviceStateCodec.encode(s).withUnsafeBytes { DeviceStateCodec.decode($0) }
    }

    /// NaN is not equal to itself: compare the bit patterns of positions.
    static func same(_ a: DeviceState, _ b: DeviceState) -> Bool {
        var x = a
        var y = b
        guard x.lat.bitPattern == y.lat.bitPattern, x.lon.bitPattern == y.lon.bitPattern else {
            return false
        }
        x.lat = 0
        x.lon = 0
        y.lat = 0
        y.lon = 0
        return x == y
    }

    @Test(arguments: 0..<3) func everyPartRoundTrips(_ k: Int) throws {
        let s = Self.samples[k]
        let back = try #require(Self.roundTrip(s))
        #expect(Self.same(back, s))
    }

    @Test func encodingAppendsToWhatTheBufferHolds() {
        var out: [UInt8] = [9, 9]
        DeviceStateCodec.encode(Self.samples[0], into: &out)
        #expect(Array(out.dropFirst(2)) == DeviceStateCodec.encode(Self.samples[0]))
    }

    @Test func everyTruncationIsRefused() {
        for s in Self.samples {
            let bytes = DeviceStateCodec.encode(s)
            for n in 0..<bytes.count {
                #expect(bytes[..<n].withUnsafeBytes { DeviceStateCodec.decode($0) } == nil)
            }
            #expect((bytes + [0]).withUnsafeBytes { DeviceStateCodec.decode($0) } == nil)
        }
    }

    @Test func anotherVersionOrDamageIsRefusedWithoutCrashing() {
        var bytes = DeviceStateCodec.encode(Self.samples[0])
        bytes[0] = 4
        #expect(bytes.withUnsafeBytes { DeviceStateCodec.decode($0) } == nil)
        // Every single-byte corruption either decodes to some state or is
        // refused; none traps or asks for a huge allocation.
        let good = DeviceStateCodec.encode(Self.samples[0])
        for i in good.indices {
            for v: UInt8 in [0x00, 0x7F, 0x80, 0xFF] {
                var b = good
                b[i] = v
                _ = b.withUnsafeBytes { DeviceStateCodec.decode($0) }
            }
        }
    }

    /// Version 1 (before the stay's recent point and the speed span) is still
    /// read: a state written by fleetd 0.2 goes on after an upgrade.
    @Test func versionOneIsStillRead() throws {
        // Parked, no speed span, no ignition, no driver: v2 is v3 without
        // the last three bytes, v1 is v2 without its last one.
        var a = Self.samples[0]
        a.ignition = nil
        a.ignitionSince = 0
        a.idle = nil
        a.driver = nil
        #expect(a.window == nil)
        let v3 = DeviceStateCodec.encode(a)
        #expect(v3.first == 3 && v3.suffix(4) == [0, 0, 0, 0])
        let v2 = [UInt8(2)] + v3.dropFirst().dropLast(3)
        #expect(Self.same(try #require(v2.withUnsafeBytes { DeviceStateCodec.decode($0) }), a))
        let v1 = [UInt8(1)] + v2.dropFirst().dropLast()
        let back = try #require(v1.withUnsafeBytes { DeviceStateCodec.decode($0) })
        #expect(Self.same(back, a))
        // A moving state of version 1: the stay's recent point is its mean.
        var b = Self.samples[1]
        b.window = nil
        b.ignition = nil
        b.ignitionSince = 0
        b.idle = nil
        b.motion = .moving(
            rest: b.motion!.rest, stay: Motion.Stay(dLat: 7e-7, dLon: -14e-7, count: 7))
        var bytes = DeviceStateCodec.encode(b)
        bytes[0] = 1
        // Drop recentLat, recentLon (the 16 bytes ending the stay) and the window tag.
        bytes.removeLast(3)  // the ignition, idle and driver tags
        let stayEnd = bytes.count - 1 - Self.tailAfterStay(b)
        bytes.removeSubrange((stayEnd - 16)..<stayEnd)
        bytes.removeLast()
        let old = try #require(bytes.withUnsafeBytes { DeviceStateCodec.decode($0) })
        guard case .moving(_, let stay) = old.motion else {
            Issue.record("not moving")
            return
        }
        #expect(abs(stay.recentLat - 1e-7) < 1e-15 && abs(stay.recentLon + 2e-7) < 1e-15)
    }

    /// Bytes after the motion part of `s`'s encoding, the window tag left
    /// out (`s` has no window): the encoding of `s` without motion, less its
    /// fixed fields, its motion tag and its window tag.
    static func tailAfterStay(_ s: DeviceState) -> Int {
        var none = s
        none.motion = nil
        var head = DeviceState(
            lastTime: s.lastTime, lat: s.lat, lon: s.lon, positionTime: s.positionTime,
            fences: [])
        head.odometerM = s.odometerM
        head.accepted = s.accepted
        head.seq = s.seq
        head.silent = s.silent
        // An empty state: its fixed fields, then nine one-byte tags or
        // counts (motion, trip, suspects, overspeed, fences, window,
        // ignition, idle, driver).
        let fixed = DeviceStateCodec.encode(head).count - 9
        return DeviceStateCodec.encode(none).count - fixed - 1 - 1 - 3
    }

    @Test func aStateIsSmallerThanItsTextForm() {
        // 20 memberships, as in the benchmark's dense areas: ids and times
        // relative to the last fix; doubles take their 8 bytes.
        var s = Self.samples[0]
        s.fences = (0..<20).map {
            FenceMembership(fence: "f\(10_000 + $0)", phase: .inside(since: s.lastTime - 60_000))
        }
        let binary = DeviceStateCodec.encode(s).count
        let text = s.fencesText.utf8.count + DeviceStateText.encode(s).utf8.count
        #expect(binary < text * 2 / 3)
    }
}
