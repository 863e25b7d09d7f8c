/// A mail address as fleetd accepts it in its settings and rules: the
/// `addr-spec` of RFC 5322 §3.4.1 in its plain form, `local@domain`, at
/// most 254 characters (RFC 5321 §4.5.3.1), printable ASCII without
/// spaces, quotes, angle brackets, commas or semicolons — so that it can be
/// written into a header or an SMTP command without any escaping, and can
/// never inject a header or a command.
public enum MailAddress {
    /// Why `text` is not an address, or nil when it is one.
    public static func problem(_ raw: String) -> String? {
        guard !raw.isEmpty else { return "an address is empty" }
        // Shown with control characters as `?`, so that a message cannot carry a line break.
        let text = raw
        let shown = String(
            String.UnicodeScalarView(
                raw.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
        guard text.utf8.count <= 254 else {
            return "\"\(shown.prefix(40))…\" is longer than 254 characters"
        }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            return "\"\(shown)\" is not an address (local@domain)"
        }
        let forbidden: Set<UInt8> = Set(" \"(),:;<>[]\\".utf8)
        for b in text.utf8 where b < 0x21 || b > 0x7E || forbidden.contains(b) {
            return "\"\(shown)\" has a character an address may not have here"
        }
        let domain = parts[1]
        guard !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else {
            return "\"\(shown)\" has a malformed domain"
        }
        return nil
    }
}
