import FleetModel

/// Forms fixes from one sender's NMEA sentences: a fix is an RMC (time,
/// date, position, speed, course), enriched by the GGA of the same second
/// (quality, satellites, HDOP, altitude) when one comes, before or after it,
/// in the same datagram or the next (gpsd's `gps2udp` sends one sentence per
/// datagram). An RMC waits for its GGA until a sentence of another second
/// arrives or `flush` is called (the daemon does every second).
///
/// A fix is invalid when the RMC's status is `V`, its mode `N`, or the GGA's
/// fix quality 0. Pure and deterministic.
public struct NMEAAssembler: Sendable {
    private var pending: NMEARMC?
    private var lastGGA: NMEAGGA?
    /// Wall-clock time (ms) the pending RMC arrived, for `flush(olderThan:)`.
    public private(set) var pendingSince: Int64 = 0

    public init() {}

    public var hasPending: Bool { pending != nil }

    /// Adds one sentence; returns the fixes it completes.
    public mutating func add(_ s: NMEASentence, device: String, nowMs: Int64) -> [Fix] {
        var out: [Fix] = []
        switch s {
        case .rmc(let r):
            if let p = pending {
                out += fix(p, nil, device)
                pending = nil
            }
            if let g = lastGGA, g.timeOfDay == r.timeOfDay {
                out += fix(r, g, device)
                lastGGA = nil
            } else {
                pending = r
                pendingSince = nowMs
            }
        case .gga(let g):
            if let p = pending {
                if p.timeOfDay == g.timeOfDay {
                    out += fix(p, g, device)
                    pending = nil
                    return out
                }
                out += fix(p, nil, device)
                pending = nil
            }
            lastGGA = g
        case .identity, .other:
            break
        }
        return out
    }

    /// Releases a waiting RMC without its GGA.
    public mutating func flush(device: String) -> [Fix] {
        guard let p = pending else { return [] }
        pending = nil
        return fix(p, nil, device)
    }

    private func fix(_ r: NMEARMC, _ g: NMEAGGA?, _ device: String) -> [Fix] {
        guard let lat = r.lat, let lon = r.lon else { return [] }
        var extra = FixExtra()
        extra.fixQuality = g?.quality
        extra.hdop = g?.hdop
        let valid = r.valid && (g?.quality.map { $0 > 0 } ?? true)
        return [
            Fix(
                device: device, time: r.time, lat: lat, lon: lon, speedKmh: r.speedKmh,
                course: r.course, altM: g?.altM,
                sats: g?.sats, valid: valid, extra: g == nil ? nil : extra)
        ]
    }
}
