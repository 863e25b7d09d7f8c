import Foundation
import Testing

@testable import FleetHTTP

/// Sessions end after their idle time, after their absolute lifetime
/// however they are used, and when closed; they carry their stamp.
@Suite struct SessionTableTests {
    @Test func aSessionEndsIdleOrOldWhicheverComesFirst() {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let table = SessionTable(idleS: 600, maxS: 3600)
        let id = table.open(user: "ada", stamp: "s1", now: t0)
        // Used every 5 minutes: never idle, but gone after an hour.
        var k = 1
        while k * 300 < 3600 {
            let s = table.session(of: id, now: t0 + TimeInterval(k * 300))
            #expect(s?.user == "ada" && s?.stamp == "s1", "at \(k * 300) s")
            k += 1
        }
        #expect(table.session(of: id, now: t0 + 3600) == nil)
        // Unused for ten minutes: gone.
        let idle = table.open(user: "bob", stamp: "s2", now: t0)
        #expect(table.session(of: idle, now: t0 + 599) != nil)
        #expect(table.session(of: idle, now: t0 + 599 + 600) == nil)
        let closed = table.open(user: "cy", stamp: "s3", now: t0)
        table.close(closed)
        #expect(table.session(of: closed, now: t0) == nil)
    }
}
