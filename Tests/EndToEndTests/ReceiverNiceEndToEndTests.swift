import FleetProtocols
import FleetSimCore
import FleetTestSupport
import Foundation
import Testing

/// `udp.receiver_nice`: the UDP receiving threads of a real fleetd run at
/// the configured nice value when the process may lower it (CAP_SYS_NICE,
/// or an RLIMIT_NICE as the unit's `LimitNICE=` sets), and otherwise stay at
/// the process's value and say so once; nothing else is raised.
@Suite(.offPool) struct ReceiverNiceEndToEndTests {
    static let setpriv = "/usr/bin/setpriv"
    static let prlimit = "/usr/bin/prlimit"
    /// fleetd run without CAP_SYS_NICE (dropped from the bounding set, so
    /// that even root's fleetd does not have it).
    static let withoutSysNice = [setpriv, "--bounding-set=-sys_nice", "--inh-caps=-sys_nice"]

    /// The nice value of each of `pid`'s threads, by thread name
    /// (`/proc/PID/task/TID/stat`, field 19; proc(5)).
    static func nice(of pid: Int32) -> [String: [Int]] {
        var out: [String: [Int]] = [:]
        let tasks = "/proc/\(pid)/task"
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(tid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            // After ")": state (field 3) … nice (field 19), i.e. the 17th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 16, let n = Int(fields[16]) { out[name, default: []].append(n) }
        }
        return out
    }

    /// Waits (up to 30 s: the whole suite runs beside it on two cores)
    /// until every UDP door's thread, the engine's and the writer's show
    /// their names (each names itself once it runs), and returns the values.
    static func receivers(of pid: Int32) -> [String: [Int]] {
        let deadline = Date().addingTimeInterval(30)
        var all: [String: [Int]] = [:]
        let named = ["udp-json", "udp-teltonika", "udp-nmea", "fleetd-engine", "fleetd-writer"]
        repeat {
            all = nice(of: pid)
            if named.allSatisfy({ all[$0] != nil }) { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return all
    }

    /// Whether this test process holds CAP_SYS_NICE (bit 23 of CapEff; capabilities(7)).
    static var mayLowerNice: Bool { holds(bit: 23) }

    /// Whether it may raise a hard RLIMIT_NICE (CAP_SYS_RESOURCE, bit 24),
    /// as systemd does for `LimitNICE=`: containers often withhold it.
    static var mayRaiseLimits: Bool { holds(bit: 24) }

    private static func holds(bit: Int) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let caps = UInt64(
                line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return caps & (1 << UInt64(bit)) != 0
    }

    @Test func theReceiversRunAtTheirNiceValueWhenAllowed() throws {
        try #require(Self.mayLowerNice, "this suite runs as root (CAP_SYS_NICE), as make test does")
        let d = try DaemonProcess(fences: nil)
        defer { _ = d.stop() }
        let all = Self.receivers(of: d.process.processIdentifier)
        for name in ["udp-json", "udp-teltonika", "udp-nmea"] {
            #expect(all[name] == [-5], "\(name): \(all)")
        }
        // Only the receivers: the engine and the writer keep the process's value.
        #expect(all["fleetd-engine"] == [0] && all["fleetd-writer"] == [0], "\(all)")
        #expect(!d.log.contains("udp.receiver_nice"), "\(d.log)")
    }

    @Test func aRefusedNiceValueIsSaidOnceAndNothingElseChanges() throws {
        let d = try DaemonProcess(fences: nil, wrapper: Self.withoutSysNice)
        defer { _ = d.stop() }
        let all = Self.receivers(of: d.process.processIdentifier)
        for name in ["udp-json", "udp-teltonika", "udp-nmea"] {
            #expect(all[name] == [0], "\(name): \(all)")
        }
        let said = d.log.split(separator: "\n").filter { $0.contains("udp.receiver_nice") }
        #expect(said.count == 3, "one line for each UDP door: \(d.log)")
        #expect(said.allSatisfy { $0.contains("stays at nice 0") && $0.contains("LimitNICE=-5") })
        // fleetd still takes and acknowledges fixes.
        let client = try UDPClient(host: "127.0.0.1", port: d.port)
        let reply = exchange(client, [fixLine(7, 1_700_000_000_000, lat: 48.1, lon: 11.5)])
        #expect(reply?.acked == [7], "\(String(describing: reply))")
    }

    /// What the packaged unit's `LimitNICE=-5` gives a service without
    /// capabilities: an RLIMIT_NICE of 25 (20 - (-5)) lets it lower the value.
    /// Skipped where this process may not raise the limit (no CAP_SYS_RESOURCE).
    @Test(.enabled(if: mayRaiseLimits)) func anRlimitNiceIsEnough() throws {
        let d = try DaemonProcess(
            fences: nil, wrapper: [Self.prlimit, "--nice=25"] + Self.withoutSysNice)
        defer { _ = d.stop() }
        let all = Self.receivers(of: d.process.processIdentifier)
        #expect(all["udp-json"] == [-5], "\(all)")
        #expect(!d.log.contains("udp.receiver_nice"), "\(d.log)")
    }

    @Test func zeroLeavesThemAlone() throws {
        try #require(Self.mayLowerNice)
        let d = try DaemonProcess(fences: nil, extraConfig: "[udp]\nreceiver_nice = 0")
        defer { _ = d.stop() }
        let all = Self.receivers(of: d.process.processIdentifier)
        #expect(all["udp-json"] == [0], "\(all)")
    }
}
