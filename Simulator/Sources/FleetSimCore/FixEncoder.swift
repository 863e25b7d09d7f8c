/// Writes fixes in fleetd's JSON fix format (one object per line).
public enum FixEncoder {
    /// One JSON object for a route point replayed as `device` with `seq`.
    public static func json(device: String, point p: RoutePoint, seq: Int64?) -> String {
        var s = "{\"device\":\"\(device)\",\"time\":\(p.time),\"lat\":\(p.lat),\"lon\":\(p.lon)"
        if let v = p.speedMps { s += ",\"speed\":\(v * 3.6)" }
        if let a = p.altM { s += ",\"alt\":\(a)" }
        if let seq { s += ",\"seq\":\(seq)" }
        return s + "}"
    }
}
