/// A vehicle standing with its ignition on (idling), as the tracker
/// follows it: `idle_start` once it has lasted `TrackerSettings.idleAfterS`,
/// `idle_end` with its duration when the ignition goes off or the vehicle
/// moves.
public struct IdleEpisode: Sendable, Equatable {
    /// When the idling began, Unix ms: the later of the ignition turning on
    /// and the vehicle coming to rest.
    public var since: Int64
    /// `idle_start` raised.
    public var announced: Bool

    public init(since: Int64, announced: Bool = false) {
        self.since = since
        self.announced = announced
    }
}
