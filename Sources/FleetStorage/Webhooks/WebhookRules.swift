import FleetTracking
import Foundation

/// What a subscription must be before it is stored, from the config file
/// or the API: every problem with the key it is about.
public enum WebhookRules {
    /// One thing wrong with a subscription: the key (`url`, `secret`, …) and what.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public let key: String
        public let message: String
        public var description: String { "\(key): \(message)" }
        public init(_ key: String, _ message: String) {
            self.key = key
            self.message = message
        }
    }

    public static let batchMaxRange = 1...1000
    public static let timeoutRange = 1.0...120.0
    public static let maxAgeRange = 1.0...8760.0

    /// A name: 1–64 characters of `[A-Za-z0-9_-]`.
    public static func validName(_ name: String) -> Bool {
        (1...64).contains(name.unicodeScalars.count)
            && name.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || $0 == "_" || $0 == "-"
            }
    }

    /// Why `url` cannot be a webhook's URL, or nil: `http` or `https`, a
    /// host, no user information (it would be logged), no fragment.
    public static func urlProblem(_ url: String) -> String? {
        guard url.utf8.count <= 2048 else { return "longer than 2048 bytes" }
        guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased() else {
            return "\"\(url)\" is not a URL"
        }
        guard scheme == "http" || scheme == "https" else {
            return "must be an http:// or https:// URL, found \(scheme):"
        }
        guard let host = u.host, !host.isEmpty else { return "has no host" }
        if u.user != nil || u.password != nil { return "must not hold a user name or password" }
        if u.fragment != nil { return "must not have a fragment (#…)" }
        if let p = u.port, !(1...65535).contains(p) { return "port \(p) is out of range" }
        return nil
    }

    /// Every problem with `s`, in key order; empty when it may be stored.
    public static func problems(_ s: WebhookSubscription) -> [Problem] {
        var p: [Problem] = []
        if !validName(s.name) {
            p.append(Problem("name", "\"\(s.name)\" is not 1–64 characters of [A-Za-z0-9_-]"))
        }
        if let m = urlProblem(s.url) { p.append(Problem("url", m)) }
        do throws(WebhookSecretError) {
            guard s.secret.utf8.count <= 4096 else {
                throw WebhookSecretError("longer than 4096 bytes")
            }
            _ = try WebhookSecret(s.secret)
        } catch {
            p.append(Problem("secret", error.description))
        }
        let known = Set(AlertType.allCases.map(\.rawValue))
        for t in s.types where !known.contains(t) {
            p.append(
                Problem(
                    "types",
                    "unknown alert type \"\(t)\" (known: \(AlertType.allCases.map(\.rawValue).joined(separator: ", ")))"
                ))
        }
        if s.devices.contains(where: \.isEmpty) {
            p.append(Problem("devices", "an empty device id"))
        }
        if s.fences.contains(where: \.isEmpty) {
            p.append(Problem("fences", "an empty fence name"))
        }
        if !batchMaxRange.contains(s.batchMax) {
            p.append(Problem("batch_max", "must be 1…1000, found \(s.batchMax)"))
        }
        if !timeoutRange.contains(s.timeoutS) {
            p.append(Problem("timeout_s", "must be 1…120, found \(s.timeoutS)"))
        }
        if !maxAgeRange.contains(s.maxAgeH) {
            p.append(Problem("max_age_h", "must be 1…8760, found \(s.maxAgeH)"))
        }
        return p
    }
}
