import FleetModel
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// What the watchdog asks before each `WATCHDOG=1`
/// (https://www.freedesktop.org/software/systemd/man/sd_watchdog_enabled.html):
/// has every thread of the pipeline shown life within the interval (each
/// listener, the engine, the writer, the HTTP servers' event loops), and,
/// when fixes are waiting, has the writer committed within it? A writer
/// retrying a failing store is not hung (it turns its loop and says so in
/// `STATUS=`); a thread that stopped turning is.
final class Liveness: Sendable {
    /// A part and when it last showed life, Unix ms.
    private let parts = Mutex<[(name: String, beat: @Sendable () -> Int64)]>([])
    /// The event loops' probes: each loop stamps its slot when it runs the
    /// task `probe()` gave it.
    private let loops = Mutex<[(loop: any EventLoop, stamp: Int64)]>([])

    func add(_ name: String, _ beat: @escaping @Sendable () -> Int64) {
        parts.withLock { $0.append((name, beat)) }
    }

    /// Watches the loops of SwiftNIO's shared group (Hummingbird's and the
    /// webhooks' client's).
    func watchEventLoops() {
        let now = Self.nowMs()
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            loops.withLock { $0.append((loop, now)) }
        }
    }

    /// Gives each event loop a task that stamps its slot (call once a second).
    func probe() {
        let all = loops.withLock { $0.map(\.loop) }
        for (index, loop) in all.enumerated() {
            loop.execute { [self] in
                loops.withLock { $0[index].stamp = Self.nowMs() }
            }
        }
    }

    static func nowMs() -> Int64 { WallClock.system.nowMs() }

    /// What has shown no life within `limitMs` at `nowMs` (empty: all well).
    func stale(
        nowMs: Int64, limitMs: Int64, fixesWaiting: Int, lastCommitMs: Int64, storageFailing: Bool
    ) -> [String] {
        var out: [String] = []
        for p in parts.withLock({ $0 }) {
            let age = nowMs - p.beat()
            if age > limitMs { out.append("\(p.name) (no life for \(age / 1000) s)") }
        }
        let loopAges = loops.withLock { $0.map { nowMs - $0.stamp } }
        for (i, age) in loopAges.enumerated() where age > limitMs {
            out.append("HTTP event loop \(i) (no life for \(age / 1000) s)")
        }
        if fixesWaiting > 0, !storageFailing, lastCommitMs > 0, nowMs - lastCommitMs > limitMs {
            out.append(
                "the writer (\(fixesWaiting) fixes waiting, no commit for \((nowMs - lastCommitMs) / 1000) s)"
            )
        }
        return out
    }
}
