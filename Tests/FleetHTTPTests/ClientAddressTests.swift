import FleetConfig
import HTTPTypes
import Testing

@testable import FleetHTTP

/// `ClientAddress`: `X-Forwarded-For` believed only from trusted proxies,
/// read from the right.
@Suite struct ClientAddressTests {
    let proxies = [AddressRange("127.0.0.1")!, AddressRange("10.0.0.0/8")!]

    func client(_ peer: String, _ xff: [String], trusted: [AddressRange]? = nil) -> String {
        var h = HTTPFields()
        for v in xff { h.append(HTTPField(name: ClientAddress.forwardedFor, value: v)) }
        return ClientAddress.resolve(peer: peer, headers: h, trusted: trusted ?? proxies)
    }

    @Test func theClientIsTheFirstUntrustedEntryFromTheRight() {
        #expect(client("127.0.0.1", ["203.0.113.5"]) == "203.0.113.5")
        // The left entry is the client's own word; the proxy chain is trusted.
        #expect(client("127.0.0.1", ["198.51.100.1, 203.0.113.5, 10.1.1.1"]) == "203.0.113.5")
        // Several header lines are one list, in order.
        #expect(client("127.0.0.1", ["198.51.100.1", "203.0.113.5"]) == "203.0.113.5")
        // Only proxies: the leftmost.
        #expect(client("127.0.0.1", ["10.2.2.2, 10.1.1.1"]) == "10.2.2.2")
    }

    @Test func theHeaderIsIgnoredUnlessThePeerIsTrusted() {
        #expect(client("203.0.113.9", ["198.51.100.1"]) == "203.0.113.9")
        #expect(client("127.0.0.1", ["198.51.100.1"], trusted: []) == "127.0.0.1")
        #expect(client("127.0.0.1", []) == "127.0.0.1")
        // A malformed entry leaves the peer.
        #expect(client("127.0.0.1", ["unknown"]) == "127.0.0.1")
        #expect(client("127.0.0.1", ["198.51.100.1, evil"]) == "127.0.0.1")
    }
}
