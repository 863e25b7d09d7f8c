import Testing

@testable import FleetHTTP

/// Who may read `/metrics` without credentials: loopback clients only.
@Suite struct MetricsRoutesTests {
    @Test(arguments: ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"])
    func loopbackPeersAreLocal(_ peer: String) {
        #expect(MetricsRoutes.isLoopback(peer))
    }

    @Test(arguments: [
        "", "10.0.0.1", "192.168.1.7", "::ffff:10.0.0.1", "fe80::1", "1.27.0.0", "::2",
    ])
    func othersAreNot(_ peer: String) {
        #expect(!MetricsRoutes.isLoopback(peer))
    }

    /// DNS rebinding: a page's own name as `Host`, though the peer is local.
    @Test func onlyAddressHostsAreOpen() {
        for host in ["127.0.0.1:9090", "127.0.0.1", "localhost:8080", "[::1]:8080", nil, ""] {
            #expect(MetricsRoutes.isAddressHost(host), "\(host ?? "nil")")
        }
        for host in ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "1.2.3"] {
            #expect(!MetricsRoutes.isAddressHost(host), "\(host)")
        }
    }
}
