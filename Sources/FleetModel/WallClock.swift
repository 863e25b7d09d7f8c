import Foundation

/// The wall clock, as fleetd's edges read it: Unix milliseconds (UTC).
///
/// One type for the whole daemon and its tools. The pure cores never read
/// it (they take time as values); the stages, stores and servers that do
/// are handed one, so a test can run them on a clock of its own
/// (`WallClock { fixedMs }`) and production on `.system`.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that answers `read()` (tests: a fixed or stepped time).
    public init(_ read: @escaping @Sendable () -> Int64) { self.read = read }

    /// The system's real-time clock (`CLOCK_REALTIME`, through Foundation).
    public static let system = WallClock { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Now, Unix milliseconds.
    public func nowMs() -> Int64 { read() }
}
