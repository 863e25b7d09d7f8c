import FleetModel
import Foundation
import Synchronization
import Testing

/// `ThreadName.set` names the calling thread from its first line, however
/// soon it runs after being created (Foundation's `Thread.name` setter does
/// nothing until the creating thread has stored the handle).
@Suite struct ThreadNameTests {
    /// The calling thread's name as the kernel has it.
    static func own() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .newlines)
    }

    @Test func aThreadNamesItselfAtOnceAndLongNamesAreCut() {
        let names = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        // Many at once: a new thread often runs before `start()` returns.
        for k in 0..<20 {
            Thread {
                ThreadName.set("fleetd-test-\(k)")
                let short = Self.own()
                ThreadName.set("ünïcode-thread-name-that-is-long")
                names.withLock { $0 += [short, Self.own()] }
                done.signal()
            }.start()
        }
        for _ in 0..<20 { done.wait() }
        let got = names.withLock { $0 }
        #expect(
            Set(got.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
                == Set((0..<20).map { "fleetd-test-\($0)" }))
        // 15 bytes at most, cut between characters (ü and ï take two bytes each).
        #expect(
            got.enumerated().filter { $0.offset % 2 == 1 }.allSatisfy {
                $0.element == "ünïcode-threa"
            })
    }
}
