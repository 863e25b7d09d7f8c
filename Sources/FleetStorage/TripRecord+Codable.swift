/// A trip's JSON, the contract `fleetctl trips --json` and the API share
/// (add fields, never rename). Times RFC 3339 UTC; distances, speeds and
/// odometers rounded to 0.1; `duration_s` and `avg_speed_kmh` derived (and
/// not read back). `open` (added with the API) is true for a trip under way,
/// whose `id` is null. `start_fence_id` and `end_fence_id` (added later)
/// are the ids of the fences `start_fence` and `end_fence` name.
/// `late_detour_m` (added later) is the part of `distance_m` the trip's
/// late fixes add; absent when read back, it is 0. `driver` (added later)
/// is the driver's key identified on the trip, or null.
extension TripRecord: Codable {
    enum CodingKeys: String, CodingKey {
        case id, device, vehicle
        case startTime = "start_time", endTime = "end_time"
        case startLat = "start_lat", startLon = "start_lon", endLat = "end_lat", endLon = "end_lon"
        case startFence = "start_fence", endFence = "end_fence"
        case distanceM = "distance_m", durationS = "duration_s", maxSpeedKmh = "max_speed_kmh"
        case averageSpeedKmh = "avg_speed_kmh", fixes
        case startOdometerM = "start_odometer_m", endOdometerM = "end_odometer_m"
        case open
        case startFenceId = "start_fence_id", endFenceId = "end_fence_id"
        case lateDetourM = "late_detour_m"
        case driver
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decodeIfPresent(Int64.self, forKey: .id) ?? 0,
            device: try c.decode(String.self, forKey: .device),
            vehicle: try c.decodeIfPresent(String.self, forKey: .vehicle),
            startTime: try RecordCoding.millis(c, .startTime),
            endTime: try RecordCoding.millis(c, .endTime),
            startLat: try c.decode(Double.self, forKey: .startLat),
            startLon: try c.decode(Double.self, forKey: .startLon),
            endLat: try c.decode(Double.self, forKey: .endLat),
            endLon: try c.decode(Double.self, forKey: .endLon),
            startFence: try c.decodeIfPresent(String.self, forKey: .startFence),
            endFence: try c.decodeIfPresent(String.self, forKey: .endFence),
            distanceM: try c.decode(Double.self, forKey: .distanceM),
            maxSpeedKmh: try c.decode(Double.self, forKey: .maxSpeedKmh),
            fixes: try c.decode(Int.self, forKey: .fixes),
            startOdometerM: try c.decode(Double.self, forKey: .startOdometerM),
            endOdometerM: try c.decode(Double.self, forKey: .endOdometerM),
            open: try c.decodeIfPresent(Bool.self, forKey: .open) ?? false,
            startFenceId: try c.decodeIfPresent(String.self, forKey: .startFenceId),
            endFenceId: try c.decodeIfPresent(String.self, forKey: .endFenceId),
            lateDetourM: try c.decodeIfPresent(Double.self, forKey: .lateDetourM) ?? 0,
            driver: try c.decodeIfPresent(String.self, forKey: .driver))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if open { try c.encodeNil(forKey: .id) } else { try c.encode(id, forKey: .id) }
        try c.encode(device, forKey: .device)
        try c.encode(vehicle, forKey: .vehicle)
        try c.encode(RecordCoding.time(startTime), forKey: .startTime)
        try c.encode(RecordCoding.time(endTime), forKey: .endTime)
        try c.encode(startLat, forKey: .startLat)
        try c.encode(startLon, forKey: .startLon)
        try c.encode(endLat, forKey: .endLat)
        try c.encode(endLon, forKey: .endLon)
        try c.encode(startFence, forKey: .startFence)
        try c.encode(endFence, forKey: .endFence)
        try c.encode(RecordCoding.tenth(distanceM), forKey: .distanceM)
        try c.encode(durationS, forKey: .durationS)
        try c.encode(RecordCoding.tenth(maxSpeedKmh), forKey: .maxSpeedKmh)
        try c.encode(RecordCoding.tenth(averageSpeedKmh), forKey: .averageSpeedKmh)
        try c.encode(fixes, forKey: .fixes)
        try c.encode(RecordCoding.tenth(startOdometerM), forKey: .startOdometerM)
        try c.encode(RecordCoding.tenth(endOdometerM), forKey: .endOdometerM)
        try c.encode(open, forKey: .open)
        try c.encode(startFenceId, forKey: .startFenceId)
        try c.encode(endFenceId, forKey: .endFenceId)
        try c.encode(RecordCoding.tenth(lateDetourM), forKey: .lateDetourM)
        try c.encode(driver, forKey: .driver)
    }
}
