import Crypto
import Foundation

/// API tokens' secrets: `fltk_` and 32 random bytes in URL-safe base64,
/// shown once; stored only as their SHA-256 (a secret this long needs no
/// slow hash, and a request can be checked in microseconds).
public enum TokenSecret {
    public static let prefix = "fltk_"

    /// A new random secret (the system's CSPRNG): `prefix` (the tokens' by
    /// default) and 32 random bytes in URL-safe base64 (43 characters).
    public static func make(prefix: String = prefix) -> String {
        var g = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &g) }
        return prefix + base64URL(bytes)
    }

    /// Lower-case hex SHA-256 of `secret`, as stored.
    public static func hash(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { b in
            let h = String(b, radix: 16)
            return b < 16 ? "0" + h : h
        }.joined()
    }

    /// `bytes` in base64url without padding (RFC 4648 §5).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
