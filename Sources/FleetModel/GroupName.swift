/// The name of a group of vehicles (which devices belong to, and users
/// and fences may be limited to): 1–64 characters of `[A-Za-z0-9 ._-]`, neither starting
/// nor ending with a space (so that it reads the same on a command line, in
/// a URL's query and in a config file).
public enum GroupName {
    public static let maxLength = 64

    public static func valid(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= maxLength, s.first != " ", s.last != " " else {
            return false
        }
        return s.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x20 || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
    }

    /// Why `s` is not a group name (for errors), or nil when it is one.
    public static func problem(_ s: String) -> String? {
        valid(s)
            ? nil
            : "\"\(s.prefix(40))\" is not a group name (1–64 characters of letters, digits, space, '.', '_', '-'; no space at either end)"
    }
}
