/// A vehicle's (or the fleet's) visits to one fence in the period. JSON:
/// `fence`, `visits`, `inside_s`.
public struct FenceVisits: Sendable, Equatable, Codable {
    enum CodingKeys: String, CodingKey {
        case fence, visits, insideS = "inside_s"
    }

    public var fence: String
    /// Entries in the period (a visit under way when it began counts too).
    public var visits: Int
    /// Time inside within the period, seconds.
    public var insideS: Double

    public init(fence: String, visits: Int, insideS: Double) {
        self.fence = fence
        self.visits = visits
        self.insideS = insideS
    }
}
