/// The stored form of a whole `DeviceState`: one compact binary value (the
/// `device_state.state` BLOB, schema v7), written for every checkpointed
/// state, so it is built with no allocation beyond its buffer and read back
/// bit-identical.
///
/// Layout, version 3: the byte `3`, then fields in a fixed order. Integers
/// are LEB128 varints (signed ones zigzag-encoded, times as differences
/// from `lastTime`, which is small for recent times); doubles are their 8
/// IEEE 754 bytes, little-endian (exact). Optional parts start with a tag
/// byte (0: absent).
///
///     version lastTime positionTime lat lon odometerM accepted seq silent
///     motion(0 | 1 still: lat lon weight rest pending? |
///       2 moving: rest dLat dLon count recentLat recentLon)
///     trip(0 | 1 parked: anchor near | 2 driving: start candidate maxKmh)
///     suspects: count, each time lat lon seq
///     overspeed(0 | 1: since maxKmh limitKmh announced underSince?)
///     fences: count, each id (length, UTF-8) phase(0 entering: since |
///       1 inside: since | 2 exiting: enteredAt since fixes)
///     window(0 | 1: since odometerM reportedKmhMs reportedMs)
///     ignition(0 unknown | 1 off: since | 2 on: since)
///     idle(0 | 1: since announced)
///     driver(0 | 1: id (length, UTF-8))
///
/// Version 1 (without `recentLat recentLon` and `window`) is still read: a
/// stay's recent point is then its mean, and the speed span starts afresh.
/// So is version 2 (without the ignition and idling): the ignition is then
/// unknown until the device reports it.
///
/// A waypoint is time lat lon odometerM fixNo. `decode` returns nil for a
/// value it cannot read (truncated, another version): the caller restarts
/// that device's tracking from its stored position.
public enum DeviceStateCodec {
    static let version: UInt8 = 3

    /// Appends the encoding of `s` to `out`.
    public static func encode(_ s: DeviceState, into out: inout [UInt8]) {
        var w = Writer(out: out, base: s.lastTime)
        out = []
        w.byte(version)
        w.int(s.lastTime)
        w.time(s.positionTime)
        w.double(s.lat)
        w.double(s.lon)
        w.double(s.odometerM)
        w.int(s.accepted)
        w.int(s.seq)
        w.byte(s.silent ? 1 : 0)
        switch s.motion {
        case nil: w.byte(0)
        case .still(let lat, let lon, let weight, let rest, let pending):
            w.byte(1)
            w.double(lat)
            w.double(lon)
            w.int(Int64(weight))
            w.waypoint(rest)
            if let p = pending {
                w.byte(1)
                w.waypoint(p)
            } else {
                w.byte(0)
            }
        case .moving(let rest, let stay):
            w.byte(2)
            w.waypoint(rest)
            w.double(stay.dLat)
            w.double(stay.dLon)
            w.int(Int64(stay.count))
            w.double(stay.recentLat)
            w.double(stay.recentLon)
        }
        switch s.trip {
        case nil: w.byte(0)
        case .parked(let anchor, let near):
            w.byte(1)
            w.waypoint(anchor)
            w.waypoint(near)
        case .driving(let start, let candidate, let maxKmh):
            w.byte(2)
            w.waypoint(start)
            w.waypoint(candidate)
            w.double(maxKmh)
        }
        w.int(Int64(s.suspects.count))
        for x in s.suspects {
            w.time(x.time)
            w.double(x.lat)
            w.double(x.lon)
            w.int(x.seq)
        }
        if let o = s.overspeed {
            w.byte(1)
            w.time(o.since)
            w.double(o.maxKmh)
            w.double(o.limitKmh)
            w.byte(o.announced ? 1 : 0)
            if let u = o.underSince {
                w.byte(1)
                w.time(u)
            } else {
                w.byte(0)
            }
        } else {
            w.byte(0)
        }
        w.int(Int64(s.fences.count))
        for m in s.fences {
            var id = m.fence
            id.withUTF8 { b in
                w.int(Int64(b.count))
                w.out.append(contentsOf: b)
            }
            switch m.phase {
            case .entering(let since):
                w.byte(0)
                w.time(since)
            case .inside(let since):
                w.byte(1)
                w.time(since)
            case .exiting(let enteredAt, let since, let fixes):
                w.byte(2)
                w.time(enteredAt)
                w.time(since)
                w.int(Int64(fixes))
            }
        }
        if let x = s.window {
            w.byte(1)
            w.time(x.since)
            w.double(x.odometerM)
            w.double(x.reportedKmhMs)
            w.int(x.reportedMs)
        } else {
            w.byte(0)
        }
        w.byte(s.ignition.map { $0 ? 2 : 1 } ?? 0)
        if s.ignition != nil { w.time(s.ignitionSince) }
        if let e = s.idle {
            w.byte(1)
            w.time(e.since)
            w.byte(e.announced ? 1 : 0)
        } else {
            w.byte(0)
        }
        if var d = s.driver {
            w.byte(1)
            d.withUTF8 { b in
                w.int(Int64(b.count))
                w.out.append(contentsOf: b)
            }
        } else {
            w.byte(0)
        }
        out = w.out
    }

    /// The encoding of `s` as a new array.
    public static func encode(_ s: DeviceState) -> [UInt8] {
        var out: [UInt8] = []
        encode(s, into: &out)
        return out
    }

    /// The state `encode` wrote, or nil when `bytes` is not such a value.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> DeviceState? {
        var r = Reader(bytes: bytes)
        guard let v = r.byte(), (1...version).contains(v), let last = r.int() else { return nil }
        r.base = last
        guard let posTime = r.time(), let lat = r.double(), let lon = r.double(),
            let odo = r.double(), let accepted = r.int(), let seq = r.int(),
            let silent = r.byte()
        else { return nil }
        var s = DeviceState(lastTime: last, lat: lat, lon: lon, positionTime: posTime, fences: [])
        s.odometerM = odo
        s.accepted = accepted
        s.seq = seq
        s.silent = silent == 1
        switch r.byte() {
        case 0: break
        case 1:
            guard let a = r.double(), let b = r.double(), let w = r.int(), let rest = r.waypoint(),
                let tag = r.byte()
            else { return nil }
            var pending: Waypoint?
            if tag == 1 {
                guard let p = r.waypoint() else { return nil }
                pending = p
            }
            s.motion = .still(lat: a, lon: b, weight: Int(w), rest: rest, pending: pending)
        case 2:
            guard let rest = r.waypoint(), let a = r.double(), let b = r.double(),
                let n = r.int()
            else { return nil }
            var stay = Motion.Stay(dLat: a, dLon: b, count: Int(n))
            if v >= 2 {
                guard let c = r.double(), let d = r.double() else { return nil }
                (stay.recentLat, stay.recentLon) = (c, d)
            } else if n > 0 {
                (stay.recentLat, stay.recentLon) = (a / Double(n), b / Double(n))
            }
            s.motion = .moving(rest: rest, stay: stay)
        default: return nil
        }
        switch r.byte() {
        case 0: break
        case 1:
            guard let anchor = r.waypoint(), let near = r.waypoint() else { return nil }
            s.trip = .parked(anchor: anchor, lastNear: near)
        case 2:
            guard let start = r.waypoint(), let cand = r.waypoint(), let m = r.double() else {
                return nil
            }
            s.trip = .driving(start: start, candidate: cand, maxSpeedKmh: m)
        default: return nil
        }
        guard let suspects = r.count() else { return nil }
        for _ in 0..<suspects {
            guard let t = r.time(), let a = r.double(), let b = r.double(), let q = r.int() else {
                return nil
            }
            s.suspects.append(Suspect(time: t, lat: a, lon: b, seq: q))
        }
        switch r.byte() {
        case 0: break
        case 1:
            guard let since = r.time(), let m = r.double(), let l = r.double(),
                let announced = r.byte(), let tag = r.byte()
            else { return nil }
            var under: Int64?
            if tag == 1 {
                guard let u = r.time() else { return nil }
                under = u
            }
            s.overspeed = OverspeedEpisode(
                since: since, maxKmh: m, limitKmh: l, announced: announced == 1,
                underSince: under)
        default: return nil
        }
        guard let fences = r.count() else { return nil }
        s.fences.reserveCapacity(fences)
        for _ in 0..<fences {
            guard let n = r.count(), let id = r.string(n) else { return nil }
            let phase: FenceMembership.Phase
            switch r.byte() {
            case 0:
                guard let t = r.time() else { return nil }
                phase = .entering(since: t)
            case 1:
                guard let t = r.time() else { return nil }
                phase = .inside(since: t)
            case 2:
                guard let e = r.time(), let t = r.time(), let k = r.int() else { return nil }
                phase = .exiting(enteredAt: e, since: t, fixes: Int(k))
            default: return nil
            }
            s.fences.append(FenceMembership(fence: id, phase: phase))
        }
        if v >= 2 {
            switch r.byte() {
            case 0: break
            case 1:
                guard let t = r.time(), let o = r.double(), let k = r.double(), let ms = r.int()
                else { return nil }
                s.window = SpeedWindow(since: t, odometerM: o, reportedKmhMs: k, reportedMs: ms)
            default: return nil
            }
        }
        if v >= 3 {
            guard let ign = r.byte(), ign <= 2 else { return nil }
            if ign > 0 {
                guard let since = r.time() else { return nil }
                s.ignition = ign == 2
                s.ignitionSince = since
            }
            switch r.byte() {
            case 0: break
            case 1:
                guard let t = r.time(), let a = r.byte() else { return nil }
                s.idle = IdleEpisode(since: t, announced: a == 1)
            default: return nil
            }
            switch r.byte() {
            case 0: break
            case 1:
                guard let n = r.count(), let id = r.string(n) else { return nil }
                s.driver = id
            default: return nil
            }
        }
        return r.atEnd ? s : nil
    }

    private struct Writer {
        var out: [UInt8]
        let base: Int64

        mutating func byte(_ b: UInt8) { out.append(b) }

        mutating func unsigned(_ v: UInt64) {
            var v = v
            while v >= 0x80 {
                out.append(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            out.append(UInt8(v))
        }

        /// Zigzag: small magnitudes of either sign take few bytes.
        mutating func int(_ v: Int64) { unsigned(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

        /// A time, as its difference from the state's `lastTime`.
        mutating func time(_ t: Int64) { int(t &- base) }

        mutating func double(_ d: Double) {
            var bits = d.bitPattern
            for _ in 0..<8 {
                out.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
            }
        }

        mutating func waypoint(_ p: Waypoint) {
            time(p.time)
            double(p.lat)
            double(p.lon)
            double(p.odometerM)
            int(p.fixNo)
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0
        var base: Int64 = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var atEnd: Bool { at == bytes.count }

        mutating func byte() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func unsigned() -> UInt64? {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while shift < 64 {
                guard let b = byte() else { return nil }
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
            return nil
        }

        mutating func int() -> Int64? {
            guard let u = unsigned() else { return nil }
            return Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1)
        }

        /// A count, at most what the remaining bytes could hold (so a damaged
        /// value cannot ask for a huge allocation).
        mutating func count() -> Int? {
            guard let n = int(), n >= 0, n <= bytes.count - at else { return nil }
            return Int(n)
        }

        mutating func time() -> Int64? { int().map { base &+ $0 } }

        mutating func double() -> Double? {
            guard at + 8 <= bytes.count else { return nil }
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            at += 8
            return Double(bitPattern: bits)
        }

        mutating func string(_ n: Int) -> String? {
            guard at + n <= bytes.count else { return nil }
            defer { at += n }
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + n)]), as: UTF8.self)
        }

        mutating func waypoint() -> Waypoint? {
            guard let t = time(), let a = double(), let b = double(), let o = double(),
                let n = int()
            else { return nil }
            return Waypoint(time: t, lat: a, lon: b, odometerM: o, fixNo: n)
        }
    }
}
