import FleetTestSupport
import Foundation
import Testing

/// The watchdog as systemd runs it (`WATCHDOG_USEC` set, `WATCHDOG=1`
/// read from the notify socket): fed while every part shows life, and not
/// fed once one stops (a listener made to hang by `FLEETD_FAULT_HANG`, the
/// fault-injection setting the daemon reads only from its environment).
@Suite(.offPool) struct WatchdogEndToEndTests {
    /// 4 s: fleetd wants life within half of it.
    static let watchdog = ["WATCHDOG_USEC": "4000000"]

    @Test func fedWhileEveryPartLives() throws {
        let d = try DaemonProcess(
            fences: depotFences, http: "127.0.0.1:0", environment: Self.watchdog)
        // Several in a row, idle as it is (the engine and writer turn their loops when idle too).
        for _ in 0..<3 { #expect(d.notify.waitFor("WATCHDOG=1", timeout: 5) != nil) }
        #expect(d.stop() == 0)
    }

    @Test func aHungListenerStopsTheWatchdog() throws {
        let d = try DaemonProcess(
            fences: depotFences, http: "127.0.0.1:0",
            environment: Self.watchdog.merging(["FLEETD_FAULT_HANG": "listener:json"]) { $1 })
        let status = d.notify.waitFor("NOT ALIVE", timeout: 10)
        #expect(status?.contains("listener json (no life for") == true, "\(status ?? "none")")
        // From then on no WATCHDOG=1: systemd would restart it.
        var fed = false
        let until = Date().addingTimeInterval(3)
        while Date() < until {
            if let m = d.notify.receive(timeout: until.timeIntervalSinceNow),
                m.contains("WATCHDOG=1")
            {
                fed = true
            }
        }
        #expect(!fed)
        #expect(d.log.contains("not alive: listener json"), "\(d.log.suffix(1000))")
        #expect(d.stop() == 0)
    }
}
