/// The persisted form of the parts of `DeviceState` beyond position and
/// fences: space-separated `key=v1,v2,…` tokens. Numbers are written in
/// Swift's shortest round-trip form, so a state read back is bit-identical.
///
/// The odometer and the silence flag are columns of their own (readers
/// use them), as are position and fences; `restore` puts all parts together.
///
/// Keys: `acc` (accepted fixes), `seq` (valid fixes), `still` /
/// `moving` (the odometer gate, with `rest` and `pend` waypoints), `park` /
/// `near` / `drive` / `cand` / `max` (trips), `sus` (one per jump suspect),
/// `os` (overspeed episode). Unknown keys are ignored (later versions add).
public enum DeviceStateText {
    /// Writes the tracking parts of `s`.
    public static func encode(_ s: DeviceState) -> String {
        // One string appended to (no string per token): the writer encodes
        // every checkpointed state of a commit. Integers of up to 15 digits
        // are small strings (no allocation); doubles write themselves.
        var out = ""
        out.reserveCapacity(256)
        func key(_ k: String) {
            if !out.isEmpty { out += " " }
            out += k
            out += "="
        }
        func int(_ v: Int64, comma: Bool = true) {
            if comma { out += "," }
            out += String(v)
        }
        func num(_ v: Double, comma: Bool = true) {
            if comma { out += "," }
            v.write(to: &out)
        }
        func wp(_ k: String, _ w: Waypoint) {
            key(k)
            int(w.time, comma: false)
            num(w.lat)
            num(w.lon)
            num(w.odometerM)
            int(w.fixNo)
        }
        key("acc")
        int(s.accepted, comma: false)
        key("seq")
        int(s.seq, comma: false)
        switch s.motion {
        case .still(let lat, let lon, let weight, let rest, let pending):
            key("still")
            num(lat, comma: false)
            num(lon)
            int(Int64(weight))
            wp("rest", rest)
            if let p = pending { wp("pend", p) }
        case .moving(let rest, let stay):
            key("moving")
            num(stay.dLat, comma: false)
            num(stay.dLon)
            int(Int64(stay.count))
            wp("rest", rest)
        case nil: break
        }
        switch s.trip {
        case .parked(let anchor, let near):
            wp("park", anchor)
            wp("near", near)
        case .driving(let start, let candidate, let maxKmh):
            wp("drive", start)
            wp("cand", candidate)
            key("max")
            num(maxKmh, comma: false)
        case nil: break
        }
        for x in s.suspects {
            key("sus")
            int(x.time, comma: false)
            num(x.lat)
            num(x.lon)
            int(x.seq)
        }
        if let o = s.overspeed {
            key("os")
            int(o.since, comma: false)
            num(o.maxKmh)
            num(o.limitKmh)
            int(o.announced ? 1 : 0)
            int(o.underSince ?? -1)
        }
        return out
    }

    /// A state from its stored parts: the `device_state` columns (fences as
    /// `DeviceState.fencesText`, the rest as `encode` wrote it; nil for a
    /// row written before that column existed).
    public static func restore(
        lastTime: Int64, lat: Double, lon: Double, positionTime: Int64, fencesText: String,
        tracking: String?, odometerM: Double, silent: Bool
    ) -> DeviceState {
        var state = DeviceState(
            lastTime: lastTime, lat: lat, lon: lon, positionTime: positionTime,
            fences: DeviceState.fences(fromText: fencesText, lastTime: lastTime))
        if let tracking { decode(tracking, into: &state) }
        state.odometerM = odometerM
        state.silent = silent
        return state
    }

    /// Reads `text` into `state` (whose position and fences are already set).
    /// Malformed tokens are skipped: a state that cannot be read restarts
    /// that part of tracking rather than stopping the daemon.
    public static func decode(_ text: String, into state: inout DeviceState) {
        var still: (Double, Double, Int)?
        var moving: Motion.Stay?
        var rest: Waypoint?
        var pending: Waypoint?
        var park: Waypoint?
        var near: Waypoint?
        var drive: Waypoint?
        var cand: Waypoint?
        var maxKmh = 0.0
        for token in text.split(separator: " ") {
            guard let eq = token.firstIndex(of: "=") else { continue }
            let key = token[..<eq]
            let v = token[token.index(after: eq)...].split(separator: ",").map(String.init)
            func wp() -> Waypoint? {
                guard v.count == 5, let t = Int64(v[0]), let la = Double(v[1]),
                    let lo = Double(v[2]),
                    let o = Double(v[3]), let n = Int64(v[4])
                else { return nil }
                return Waypoint(time: t, lat: la, lon: lo, odometerM: o, fixNo: n)
            }
            switch key {
            case "acc": state.accepted = v.first.flatMap { Int64($0) } ?? 0
            case "seq": state.seq = v.first.flatMap { Int64($0) } ?? 0
            case "still":
                if v.count == 3, let a = Double(v[0]), let b = Double(v[1]), let w = Int(v[2]) {
                    still = (a, b, w)
                }
            case "moving":
                if v.count == 3, let a = Double(v[0]), let b = Double(v[1]), let n = Int(v[2]) {
                    moving = Motion.Stay(dLat: a, dLon: b, count: n)
                }
            case "rest": rest = wp()
            case "pend": pending = wp()
            case "park": park = wp()
            case "near": near = wp()
            case "drive": drive = wp()
            case "cand": cand = wp()
            case "max": maxKmh = v.first.flatMap { Double($0) } ?? 0
            case "sus":
                if v.count == 4, let t = Int64(v[0]), let a = Double(v[1]), let b = Double(v[2]),
                    let q = Int64(v[3])
                {
                    state.suspects.append(Suspect(time: t, lat: a, lon: b, seq: q))
                }
            case "os":
                if v.count == 5, let since = Int64(v[0]), let m = Double(v[1]),
                    let l = Double(v[2]),
                    let a = Int(v[3]), let u = Int64(v[4])
                {
                    state.overspeed = OverspeedEpisode(
                        since: since, maxKmh: m, limitKmh: l, announced: a == 1,
                        underSince: u < 0 ? nil : u)
                }
            default: break
            }
        }
        if let rest {
            if let (a, b, w) = still {
                state.motion = .still(lat: a, lon: b, weight: w, rest: rest, pending: pending)
            } else if let moving {
                state.motion = .moving(rest: rest, stay: moving)
            }
        }
        if let park, let near {
            state.trip = .parked(anchor: park, lastNear: near)
        } else if let drive, let cand {
            state.trip = .driving(start: drive, candidate: cand, maxSpeedKmh: maxKmh)
        }
    }
}
