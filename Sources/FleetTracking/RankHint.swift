/// A number the tracker caches beside a device's memberships so that a fix
/// can be checked against them without looking fence ids up: a membership's
/// fence rank, or the tracker generation those ranks belong to
/// (`DeviceState.ranksEpoch`).
///
/// Never part of a state's meaning: two hints are always equal, so states
/// and memberships compare (and persist) as if it were not there. A state
/// read from the database or built by hand starts with none (0), and a
/// tracker trusts the ranks only when the state's epoch is its own: fences
/// reloaded (a new tracker) means the ids are looked up again.
struct RankHint: Sendable, Equatable {
    var value: UInt32 = 0

    init() {}

    init(_ value: UInt32) { self.value = value }

    static func == (_: RankHint, _: RankHint) -> Bool { true }
}
