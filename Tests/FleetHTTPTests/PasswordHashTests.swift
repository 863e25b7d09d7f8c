import FleetAuth
import Testing

/// Passwords bcrypt would read short: refused when set, never matched.
@Suite struct PasswordHashTests {
    @Test func aPasswordWithANulByteIsRefusedAndNeverMatches() {
        #expect(PasswordHash.problem("\0\0\0\0\0\0\0\0") == "a password may not contain a NUL byte")
        #expect(PasswordHash.problem("good-pass\0word") != nil)
        #expect(PasswordHash.problem("good-password") == nil)
        // A hash of a password that stops where bcrypt's C string would.
        let hash = PasswordHash.make("prefix-1")
        #expect(PasswordHash.check("prefix-1", against: hash))
        #expect(!PasswordHash.check("prefix-1\0anything", against: hash))
    }
}
