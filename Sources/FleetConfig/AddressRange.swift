#if canImport(Glibc)
    import Glibc
#endif

/// An IP address range in CIDR notation (RFC 4632 for IPv4, RFC 4291
/// §2.3 for IPv6): `10.0.0.0/8`, `127.0.0.1` (one address), `::1`,
/// `fd00::/8`. An IPv4 address seen as IPv4-mapped IPv6 (`::ffff:a.b.c.d`,
/// as a dual-stack socket reports it) matches the IPv4 range.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The network's bytes (4 or 16), host bits cleared.
    private let network: [UInt8]
    /// Leading bits that must match (0–32 or 0–128).
    private let bits: Int
    public let description: String

    /// Parses `text`; nil when it is not an address or `address/bits`
    /// with bits in range.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
            let bytes = Self.bytes(String(parts[0]))
        else { return nil }
        let most = bytes.count * 8
        var bits = most
        if parts.count == 2 {
            guard let b = Int(parts[1]), (0...most).contains(b), !parts[1].hasPrefix("+")
            else { return nil }
            bits = b
        }
        self.bits = bits
        self.network = Self.masked(bytes, bits)
        self.description = text
    }

    /// Whether `address` (an IP address as text) is in the range; false
    /// for text that is not an address.
    public func contains(_ address: String) -> Bool {
        guard var a = Self.bytes(address) else { return false }
        if a.count == 16, network.count == 4,
            a[0..<12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff][...]
        {
            a = Array(a[12...])
        }
        guard a.count == network.count else { return false }
        return Self.masked(a, bits) == network
    }

    /// Whether any of `ranges` contains `address`.
    public static func any(_ ranges: [AddressRange], contain address: String) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The 4 or 16 bytes of an address written as text (IPv6 may carry a
    /// zone, `%eth0`, which is ignored); nil for anything else.
    public static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: v4) { Array($0) }
        }
        let plain = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var v6 = in6_addr()
        if inet_pton(AF_INET6, plain, &v6) == 1 {
            return withUnsafeBytes(of: v6) { Array($0) }
        }
        return nil
    }

    private static func masked(_ bytes: [UInt8], _ bits: Int) -> [UInt8] {
        var out = bytes
        for i in 0..<out.count {
            let keep = max(0, min(8, bits - i * 8))
            out[i] &= keep == 8 ? 0xff : UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        return out
    }
}
