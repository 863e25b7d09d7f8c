import FleetTestSupport
import Foundation
import Testing

/// The shipped unit, as systemd's own tools judge it.
@Suite(.offPool) struct SystemdUnitTests {
    static let analyze = "/usr/bin/systemd-analyze"

    /// `systemd-analyze security --offline=true` (systemd 252): the
    /// exposure must stay at 1.5 or below.
    @Test func theServiceIsHardened() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.analyze) else {
            Issue.record("\(Self.analyze) is missing (Debian's systemd package)")
            return
        }
        let unit = Binaries.packageRoot.appendingPathComponent("systemd/fleetd.service").path
        let r = try runTool(Self.analyze, ["security", "--offline=true", "--no-pager", unit])
        let text = r.out + r.err
        let marker = "Overall exposure level for fleetd.service: "
        let line = try #require(
            text.split(separator: "\n").first { $0.contains(marker) }, "\(text.suffix(2000))")
        let value = Double(
            line[line.range(of: marker)!.upperBound...].prefix { $0.isNumber || $0 == "." })
        let exposure = try #require(value, "\(line)")
        #expect(exposure <= 1.5, "exposure \(exposure):\n\(text)")
        // It also verifies as a unit (no unknown directive).
        let verify = try runTool(Self.analyze, ["verify", "--man=no", unit])
        #expect(!verify.err.contains("Unknown key"), "\(verify.err)")
    }

    /// The socket unit verifies beside its service, and names the ports
    /// fleetd's defaults listen on (it matches passed sockets by port).
    @Test func theSocketUnitVerifies() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.analyze) else {
            Issue.record("\(Self.analyze) is missing (Debian's systemd package)")
            return
        }
        let dir = Binaries.packageRoot.appendingPathComponent("systemd")
        let socket = dir.appendingPathComponent("fleetd.socket").path
        let verify = try runTool(
            Self.analyze,
            ["verify", "--man=no", socket, dir.appendingPathComponent("fleetd.service").path])
        #expect(!verify.err.contains("Unknown key"), "\(verify.err)")
        #expect(!verify.err.contains("fleetd.socket:"), "\(verify.err)")
        let text = try String(contentsOfFile: socket, encoding: .utf8)
        for port in [5055, 5027, 10110] {
            #expect(text.contains("ListenDatagram=127.0.0.1:\(port)"))
        }
    }
}
