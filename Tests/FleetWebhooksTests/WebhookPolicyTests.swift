import Testing

@testable import FleetWebhooks

/// The address policy (no request to internal services) and the retry
/// schedule.
@Suite struct WebhookPolicyTests {
    @Test(arguments: [
        "0.0.0.0", "127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.0.1", "172.31.255.255",
        "192.168.1.1", "100.64.0.1", "169.254.169.254", "169.254.1.1", "224.0.0.1",
        "255.255.255.255", "::", "::1", "fd00:ec2::254", "fc00::1", "fe80::1%eth0", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:10.1.2.3", "2001:db8::1",
        // IPv4 inside IPv6: NAT64, 6to4, Teredo, IPv4-translated; site-local.
        "64:ff9b::a9fe:a9fe", "64:ff9b::169.254.169.254", "64:ff9b::7f00:1", "64:ff9b:1::a00:1",
        "2002:a9fe:a9fe::1", "2002:7f00:1::", "2001:0:4136:e378:8000:63bf:5601:5601",
        "::ffff:0:a9fe:a9fe", "fec0::1",
    ])
    func internalAddressesAreRefused(_ address: String) {
        #expect(WebhookAddressPolicy.refusal(address) != nil, "\(address) passed")
    }

    @Test(arguments: [
        "93.184.215.14", "8.8.8.8", "172.15.255.255", "172.32.0.1", "100.128.0.1",
        "2606:4700:4700::1111", "::ffff:8.8.4.4", "64:ff9b::808:808", "2002:808:808::1",
    ])
    func publicAddressesPass(_ address: String) {
        #expect(WebhookAddressPolicy.refusal(address) == nil, "\(address) refused")
    }

    @Test func namesAreNotAddresses() {
        #expect(WebhookAddressPolicy.refusal("dispatch.example") == "not an IP address")
        #expect(WebhookAddressPolicy.refusal("") == "not an IP address")
    }

    @Test func backoffDoublesWithJitterUpToItsCeiling() {
        let b = WebhookBackoff()
        #expect(b.delayS(failures: 1, unit: 0) == 0.5 && b.delayS(failures: 1, unit: 0.999) < 1)
        #expect(b.delayS(failures: 2, unit: 0) == 1)
        #expect(b.delayS(failures: 5, unit: 0.5) == 12)  // ceiling 16 s: 8 + 4
        // 1 s doubled nine times is 512 s; the tenth reaches the 10-minute ceiling.
        #expect(b.delayS(failures: 10, unit: 0) == 256)
        #expect(b.delayS(failures: 11, unit: 0) == 300 && b.delayS(failures: 500, unit: 1) == 600)
    }

    @Test func retryAfterIsSecondsOrAnHTTPDate() {
        let b = WebhookBackoff()
        #expect(b.retryAfterS("120", nowS: 0) == 120)
        #expect(b.retryAfterS("86400", nowS: 0) == 600)  // capped
        // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 (RFC 9110's example date).
        #expect(b.retryAfterS("Sun, 06 Nov 1994 08:49:37 GMT", nowS: 784_111_700) == 77)
        #expect(b.retryAfterS("Sun, 06 Nov 1994 08:49:37 GMT", nowS: 784_111_800) == 0)
        #expect(b.retryAfterS("soon", nowS: 0) == nil && b.retryAfterS("-5", nowS: 0) == nil)
    }
}
