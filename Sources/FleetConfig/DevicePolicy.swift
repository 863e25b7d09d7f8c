import Foundation

/// Per-device admission rules (`devices.policy_file`): where a device may
/// send from, and the key it must send. A device id is not a secret (an
/// IMEI is printed on the box); these make one worth something.
///
/// The file is TOML, one `[[device]]` table per device:
///
///     [[device]]
///     id = "352093081429150"
///     allow_from = ["203.0.113.0/24", "2001:db8::/32"]
///
///     [[device]]
///     id = "phone-7"
///     key = "a long random secret"
///
/// A device without a table is admitted as before (registry and budgets).
public struct DevicePolicy: Sendable, Equatable {
    /// One device's rules.
    public struct Rule: Sendable, Equatable {
        /// Sender addresses the device's fixes may come from; empty: any.
        public var allowFrom: [AddressRange] = []
        /// The key its fixes must carry (JSON `key`, OsmAnd `key`); nil:
        /// none. A device with a key is refused over doors that cannot
        /// carry one (UDP Teltonika and NMEA, the TCP doors).
        public var key: [UInt8]?
    }

    /// Rules by device id.
    public var rules: [String: Rule] = [:]

    public init(rules: [String: Rule] = [:]) { self.rules = rules }

    /// Keys shorter than this are refused when the file is read.
    public static let minimumKeyBytes = 16

    /// Reads `path` ("" is no rules). Throws `ConfigError` naming the file,
    /// the line and the key.
    public static func load(path: String) throws(ConfigError) -> DevicePolicy {
        guard !path.isEmpty else { return DevicePolicy() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(
                file: path, line: nil, key: nil, message: "cannot be read (devices.policy_file)")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    /// Reads the policy's text; `file` labels errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> DevicePolicy {
        let root = try TOMLParser.parse(text, file: file)
        for key in root.keys where key != "device" {
            throw ConfigError(
                file: file, line: root.line(of: key), key: key,
                message: "unknown key (the file holds [[device]] tables)")
        }
        var policy = DevicePolicy()
        for t in try root.tables("device", file: file) {
            var s = ConfigSection(element: t, "device", file: file)
            let id = try s.string("id", default: "")
            guard !id.isEmpty else { throw s.error("id", "every [[device]] needs an id") }
            var rule = Rule()
            for text in try s.strings("allow_from") {
                guard let r = AddressRange(text) else {
                    throw s.error(
                        "allow_from", "\"\(text)\" is not an IP address or range (\"10.0.0.0/8\")")
                }
                rule.allowFrom.append(r)
            }
            let key = try s.string("key", default: "")
            if !key.isEmpty {
                guard key.utf8.count >= minimumKeyBytes else {
                    throw s.error("key", "must be at least \(minimumKeyBytes) bytes")
                }
                rule.key = Array(key.utf8)
            }
            try s.finish()
            guard policy.rules.updateValue(rule, forKey: id) == nil else {
                throw ConfigError(
                    file: file, line: t.line(of: "id"), key: "device.id",
                    message: "device \(id) has two [[device]] tables")
            }
        }
        return policy
    }

    /// Why a fix of `device` from `source` (its address; nil when not
    /// known; asked only for a device with `allow_from`) carrying `key`
    /// over a door that can (`carriesKeys`) or cannot carry one is
    /// refused, or nil when it is admitted.
    public func refusal(
        device: String, source: @autoclosure () -> String?, key: String?, carriesKeys: Bool
    ) -> (reason: Refusal, detail: String)? {
        guard let rule = rules[device] else { return nil }
        if !rule.allowFrom.isEmpty {
            let source = source()
            guard let source, AddressRange.any(rule.allowFrom, contain: source) else {
                return (
                    .source,
                    "device \(device) may not send from \(source ?? "an unknown address") (devices.policy_file allow_from)"
                )
            }
        }
        if let expected = rule.key {
            guard carriesKeys else {
                return (
                    .key,
                    "device \(device) has a key (devices.policy_file), and this door cannot carry one"
                )
            }
            guard let key, Self.equal(Array(key.utf8), expected) else {
                return (.key, "device \(device): \(key == nil ? "no" : "wrong") key")
            }
        }
        return nil
    }

    /// Which rule refused a fix.
    public enum Refusal: Sendable { case source, key }

    /// Equal bytes, compared in time that depends on the lengths only.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }
}
