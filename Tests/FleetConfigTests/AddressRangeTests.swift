import Testing

@testable import FleetConfig

/// `AddressRange` (CIDR): what it takes, and which addresses it holds.
@Suite struct AddressRangeTests {
    @Test func rangesHoldTheirAddressesOnly() throws {
        let ten = try #require(AddressRange("10.0.0.0/8"))
        #expect(ten.contains("10.255.1.2"))
        #expect(!ten.contains("11.0.0.1"))
        // An IPv4 client as a dual-stack socket reports it.
        #expect(ten.contains("::ffff:10.1.2.3"))
        let one = try #require(AddressRange("127.0.0.1"))
        #expect(one.contains("127.0.0.1") && !one.contains("127.0.0.2"))
        let v6 = try #require(AddressRange("fd00::/8"))
        #expect(v6.contains("fd12:3456::1") && !v6.contains("fe80::1"))
        #expect(!v6.contains("10.0.0.1"))
        let odd = try #require(AddressRange("192.168.1.128/25"))
        #expect(odd.contains("192.168.1.200") && !odd.contains("192.168.1.127"))
        let all = try #require(AddressRange("0.0.0.0/0"))
        #expect(all.contains("203.0.113.9"))
        #expect(!one.contains("not an address") && !one.contains(""))
    }

    @Test func malformedRangesAreRefused() {
        for text in [
            "", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "::1/129", "10.0.0/8",
            "example.com", "10.0.0.0/8/8", "10.0.0.0/",
        ] {
            #expect(AddressRange(text) == nil, "\(text)")
        }
    }

    @Test func trustedProxiesAreReadFromTheConfig() throws {
        let c = try DaemonConfig.parse(
            """
            [http]
            trusted_proxies = ["127.0.0.1", "10.0.0.0/8"]
            """, file: "test.toml")
        #expect(c.http.settings.trustedProxies.map(\.description) == ["127.0.0.1", "10.0.0.0/8"])
        #expect(throws: ConfigError.self) {
            try DaemonConfig.parse(
                """
                [http]
                trusted_proxies = ["10.0.0.0/99"]
                """, file: "test.toml")
        }
    }
}
