import FleetConfig
import FleetProtocols
import Foundation
import Testing

@testable import FleetDaemon

/// Every protocol of the registry (`TrackerProtocol`) has what running it
/// takes outside the code, which no exhaustive `switch` can check: its
/// `[listen]` key in the shipped config, its socket in the systemd socket
/// unit (for the transports systemd holds), and its row in the docs.
@Suite struct ProtocolRegistryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..")

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test(arguments: TrackerProtocol.allCases)
    func theShippedConfigShowsItsListenKeyWithItsDefault(_ p: TrackerProtocol) throws {
        let config = try Self.text("config/fleetd.toml")
        let lines = config.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "[listen]"))
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("[") }
        if p.onByDefault {
            #expect(section.contains("# \(p.key) = \"127.0.0.1:\(p.defaultPort)\""))
        } else {
            // Off: shown off, with its usual address in the comment above.
            #expect(section.contains("# \(p.key) = \"\""))
            #expect(section.joined(separator: "\n").contains("\"127.0.0.1:\(p.defaultPort)\""))
        }
        #expect(DaemonConfig().listen.address(of: p)?.port == (p.onByDefault ? p.defaultPort : nil))
    }

    @Test(arguments: TrackerProtocol.allCases)
    func theSocketUnitHoldsEachUDPProtocol(_ p: TrackerProtocol) throws {
        let unit = try Self.text("systemd/fleetd.socket")
        switch p.transport {
        case .udp:
            #expect(unit.contains("\nListenDatagram=127.0.0.1:\(p.defaultPort)\n"))
        case .http:
            // The HTTP server binds its own sockets (`Daemon.assign`).
            #expect(!unit.contains("ListenStream=127.0.0.1:\(p.defaultPort)"))
        case .tcp:
            #expect(unit.contains("\nListenStream=127.0.0.1:\(p.defaultPort)\n"))
        }
    }

    @Test(arguments: TrackerProtocol.allCases)
    func theDocsNameIt(_ p: TrackerProtocol) throws {
        #expect(try Self.text("docs/protocols.md").contains("`\(p.key)`"))
    }

    @Test func everyFormatNamesItsOwnProtocol() {
        for p in TrackerProtocol.allCases {
            switch p.transport {
            case .udp, .http:
                #expect(p.makeFormat()?.trackerProtocol == p)
                #expect(p.makeFormat()?.name == p.key)
                #expect(p.makeSession(maxFrame: 1024) == nil)
            case .tcp:
                #expect(p.makeFormat() == nil)
                #expect(p.makeSession(maxFrame: 1024)?.trackerProtocol == p)
                #expect(p.makeSession(maxFrame: 1024)?.name == p.key)
            }
        }
    }

    @Test func theArchitectureTableListsEveryFileAProtocolTakes() throws {
        let doc = try Self.text("docs/architecture.md")
        let row = try #require(
            doc.split(separator: "\n").first { $0.hasPrefix("| a tracker protocol ") })
        for file in [
            "TrackerProtocol.swift", "WireFormat", "PacketEncoder.swift", "config/fleetd.toml",
            "systemd/fleetd.socket", "docs/protocols.md",
        ] {
            #expect(row.contains(file), "the row does not name \(file)")
        }
    }
}
