import HummingbirdBcrypt

/// Passwords as stored: bcrypt hashes (cost 12, about a quarter of a second
/// to check here), never the password itself.
public enum PasswordHash {
    /// bcrypt's work factor.
    public static let cost: UInt8 = 12

    /// The longest password taken: bcrypt reads only the first 72 bytes, so a
    /// longer one would be accepted by any password sharing that prefix.
    public static let maxBytes = 72

    /// The hash to store for `password`. Slow on purpose: call it off any event loop.
    public static func make(_ password: String) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// True when `password` matches `hash`. Slow on purpose: call it off any event loop.
    /// A password with a NUL byte never matches: bcrypt reads a C string,
    /// so "\0\0\0\0\0\0\0\0" would be checked as the empty password.
    public static func check(_ password: String, against hash: String) -> Bool {
        guard password.utf8.count <= maxBytes, !password.utf8.contains(0) else { return false }
        return Bcrypt.verify(password, hash: hash)
    }

    /// What is wrong with a new password, or nil when it will do: at least
    /// 8 bytes, at most `maxBytes`, no NUL byte (bcrypt would stop there).
    public static func problem(_ password: String) -> String? {
        if password.utf8.contains(0) { return "a password may not contain a NUL byte" }
        let n = password.utf8.count
        if n < 8 { return "a password needs at least 8 characters" }
        if n > maxBytes {
            return "a password may have at most \(maxBytes) bytes (bcrypt reads no more)"
        }
        return nil
    }
}
