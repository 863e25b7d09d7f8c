import Foundation

/// Which addresses a webhook may be sent to. A subscriber must not be able
/// to point fleetd at internal services (server-side request forgery), so
/// unless a subscription allows private addresses, every address its host
/// resolves to must be public: not unspecified, loopback, private
/// (RFC 1918, RFC 4193), shared (RFC 6598), link-local (RFC 3927, RFC 4291;
/// this holds the cloud metadata services at 169.254.169.254 and
/// fd00:ec2::254 too), multicast, or reserved. An IPv6 address that
/// carries an IPv4 one is judged as that IPv4 address too: IPv4-mapped
/// (`::ffff:0:0/96`) and IPv4-translated (`::ffff:0:0:0/96`, RFC 2765),
/// the NAT64 well-known prefix (`64:ff9b::/96`, RFC 6052; the local-use
/// `64:ff9b:1::/48`, RFC 8215, is refused whole), 6to4 (`2002::/16`,
/// RFC 3056) and Teredo (`2001::/32`, RFC 4380: the client's address,
/// inverted); so `http://[64:ff9b::a9fe:a9fe]/` is the metadata service.
/// Site-local `fec0::/10` (deprecated by RFC 3879) is refused. Pure: the
/// caller resolves the name.
public enum WebhookAddressPolicy {
    /// Why an address is not public, or nil when it is.
    public static func refusal(_ address: String) -> String? {
        if let v4 = ipv4(address) { return refusal(v4: v4) }
        if let v6 = ipv6(address) {
            if let (v4, form) = embedded(v6), let why = refusal(v4: v4) {
                return "\(why) through \(form)"
            }
            return refusal(v6: v6)
        }
        return "not an IP address"
    }

    static func refusal(v4 a: [UInt8]) -> String? {
        switch (a[0], a[1]) {
        case (0, _): return "unspecified (0.0.0.0/8)"
        case (127, _): return "loopback (127.0.0.0/8)"
        case (10, _): return "private (10.0.0.0/8)"
        case (172, 16...31): return "private (172.16.0.0/12)"
        case (192, 168): return "private (192.168.0.0/16)"
        case (100, 64...127): return "shared address space (100.64.0.0/10)"
        case (169, 254): return "link-local or cloud metadata (169.254.0.0/16)"
        case (192, 0) where a[2] == 0: return "IETF protocol assignments (192.0.0.0/24)"
        case (198, 18...19): return "benchmarking (198.18.0.0/15)"
        case (224...239, _): return "multicast (224.0.0.0/4)"
        case (240...255, _): return "reserved or broadcast (240.0.0.0/4)"
        default: return nil
        }
    }

    /// The IPv4 address an IPv6 one carries, with the form's name, or nil.
    static func embedded(_ a: [UInt8]) -> ([UInt8], String)? {
        let tail = Array(a[12..<16])
        if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xff && a[11] == 0xff {
            return (tail, "IPv4-mapped ::ffff:0:0/96")
        }
        if a[0..<8].allSatisfy({ $0 == 0 }) && a[8] == 0xff && a[9] == 0xff && a[10] == 0
            && a[11] == 0
        {
            return (tail, "IPv4-translated ::ffff:0:0:0/96")
        }
        if a[0..<4].elementsEqual([0x00, 0x64, 0xff, 0x9b]) && a[4..<12].allSatisfy({ $0 == 0 }) {
            return (tail, "NAT64 64:ff9b::/96")
        }
        if a[0] == 0x20 && a[1] == 0x02 { return (Array(a[2..<6]), "6to4 2002::/16") }
        if a[0..<4].elementsEqual([0x20, 0x01, 0x00, 0x00]) {
            return (tail.map { $0 ^ 0xff }, "Teredo 2001::/32")
        }
        return nil
    }

    static func refusal(v6 a: [UInt8]) -> String? {
        if a.allSatisfy({ $0 == 0 }) { return "unspecified (::)" }
        if a[0..<6].elementsEqual([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01]) {
            return "local-use NAT64 (64:ff9b:1::/48)"
        }
        if a[0] == 0xfe && a[1] & 0xc0 == 0xc0 { return "site-local (fec0::/10, deprecated)" }
        if a[0..<15].allSatisfy({ $0 == 0 }) && a[15] == 1 { return "loopback (::1)" }
        if a[0] & 0xfe == 0xfc { return "unique local, private or cloud metadata (fc00::/7)" }
        if a[0] == 0xfe && a[1] & 0xc0 == 0x80 { return "link-local (fe80::/10)" }
        if a[0] == 0xff { return "multicast (ff00::/8)" }
        if a[0..<12].allSatisfy({ $0 == 0 }) { return "IPv4-compatible (::/96, deprecated)" }
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8 {
            return "documentation (2001:db8::/32)"
        }
        return nil
    }

    /// The four bytes of a dotted IPv4 address, or nil.
    static func ipv4(_ s: String) -> [UInt8]? {
        var a = in_addr()
        guard inet_pton(AF_INET, s, &a) == 1 else { return nil }
        return withUnsafeBytes(of: a.s_addr) { Array($0) }
    }

    /// The sixteen bytes of an IPv6 address (without a zone), or nil.
    static func ipv6(_ s: String) -> [UInt8]? {
        var a = in6_addr()
        let plain = s.split(separator: "%", maxSplits: 1).first.map(String.init) ?? s
        guard inet_pton(AF_INET6, plain, &a) == 1 else { return nil }
        return withUnsafeBytes(of: a) { Array($0) }
    }
}
