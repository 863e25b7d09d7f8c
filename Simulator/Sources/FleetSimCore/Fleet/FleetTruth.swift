/// What really happened in a simulated fleet (`fleetsim fleet --truth`):
/// the JSON that `fleetsim score` compares fleetd's alerts and trips with.
/// A typed contract: fields are added, never renamed.
public struct FleetTruth: Codable, Sendable, Equatable {
    public var scenario: Scenario
    public var vehicles: [Vehicle] = []
    /// Every true fence entry and exit, from the noise-free path.
    public var fenceEvents: [FenceEvent] = []
    /// Every journey: from setting off to coming to rest.
    public var trips: [TrueTrip] = []
    /// Every stretch over the speed limit lasting `overspeed_min_s`.
    public var overspeed: [TrueOverspeed] = []

    enum CodingKeys: String, CodingKey {
        case scenario, vehicles, trips, overspeed
        case fenceEvents = "fence_events"
    }

    public struct Scenario: Codable, Sendable, Equatable {
        public var vehicles: Int
        public var hours: Double
        public var seed: UInt64
        public var proto: String
        public var startMs: Int64
        public var endMs: Int64
        public var noiseM: Double
        public var outlierRate: Double
        public var speedLimitKmh: Double
        public var overspeedMinS: Double
        public var marginM: Double
        /// Fences the truth was computed against (ids).
        public var fences: Int

        enum CodingKeys: String, CodingKey {
            case vehicles, hours, seed, proto, fences
            case startMs = "start_ms"
            case endMs = "end_ms"
            case noiseM = "noise_m"
            case outlierRate = "outlier_rate"
            case speedLimitKmh = "speed_limit_kmh"
            case overspeedMinS = "overspeed_min_s"
            case marginM = "margin_m"
        }
    }

    /// A vehicle, its device and what its device sent.
    public struct Vehicle: Codable, Sendable, Equatable {
        /// The device id as fleetd sees it (the IMEI for Teltonika).
        public var device: String
        public var proto: String
        /// Seconds between fixes while driving.
        public var intervalS: Int
        /// Fixes recorded (sent or not: a tunnel records none), outliers
        /// among them, fixes sent from a backlog after a coverage gap.
        public var fixes: Int = 0
        public var outliers: Int = 0
        public var backlogged: Int = 0
        /// Datagrams delivered twice, and out of order.
        public var duplicated: Int = 0
        public var reordered: Int = 0
        /// Total true distance, metres (WGS 84 geodesic along the path).
        public var distanceM: Double = 0
        /// Seconds parked on the edge of a yard fence.
        public var parkedOnEdgeS: Double = 0

        enum CodingKeys: String, CodingKey {
            case device, proto, fixes, outliers, backlogged, duplicated, reordered
            case intervalS = "interval_s"
            case distanceM = "distance_m"
            case parkedOnEdgeS = "parked_on_edge_s"
        }
    }

    public struct FenceEvent: Codable, Sendable, Equatable {
        public var device: String
        public var fence: String
        /// "enter" or "exit".
        public var type: String
        public var timeMs: Int64

        enum CodingKeys: String, CodingKey {
            case device, fence, type
            case timeMs = "time_ms"
        }
    }

    public struct TrueTrip: Codable, Sendable, Equatable {
        public var device: String
        public var startMs: Int64
        public var endMs: Int64
        /// Geodesic length of the path driven, metres.
        public var distanceM: Double
        public var maxSpeedKmh: Double

        enum CodingKeys: String, CodingKey {
            case device
            case startMs = "start_ms"
            case endMs = "end_ms"
            case distanceM = "distance_m"
            case maxSpeedKmh = "max_speed_kmh"
        }
    }

    public struct TrueOverspeed: Codable, Sendable, Equatable {
        public var device: String
        public var startMs: Int64
        public var endMs: Int64
        public var maxSpeedKmh: Double

        enum CodingKeys: String, CodingKey {
            case device
            case startMs = "start_ms"
            case endMs = "end_ms"
            case maxSpeedKmh = "max_speed_kmh"
        }
    }
}
