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
}
