import Testing

@testable import FleetConfig

/// `devices.policy_file`: what it takes, what it refuses (naming the line
/// and key), and the rules it gives.
@Suite struct DevicePolicyTests {
    let policy = try! DevicePolicy.parse(
        """
        [[device]]
        id = "fenced"
        allow_from = ["10.0.0.0/8", "2001:db8::/32"]

        [[device]]
        id = "keyed"
        key = "0123456789abcdef-key"
        """, file: "devices.toml")

    @Test func rulesAdmitOnlyWhatTheySay() {
        #expect(
            policy.refusal(device: "free", source: "1.2.3.4", key: nil, carriesKeys: false) == nil)
        #expect(
            policy.refusal(device: "fenced", source: "10.9.8.7", key: nil, carriesKeys: false)
                == nil)
        #expect(
            policy.refusal(device: "fenced", source: "11.0.0.1", key: nil, carriesKeys: true)?
                .reason == .source)
        #expect(
            policy.refusal(device: "fenced", source: nil, key: nil, carriesKeys: true)?.reason
                == .source)
        let right = "0123456789abcdef-key"
        #expect(
            policy.refusal(device: "keyed", source: "1.2.3.4", key: right, carriesKeys: true) == nil
        )
        #expect(
            policy.refusal(device: "keyed", source: "1.2.3.4", key: right + "x", carriesKeys: true)?
                .reason == .key)
        #expect(
            policy.refusal(device: "keyed", source: "1.2.3.4", key: nil, carriesKeys: true)?.reason
                == .key)
        // A door that cannot carry a key cannot speak for a device that has one.
        #expect(
            policy.refusal(device: "keyed", source: "1.2.3.4", key: nil, carriesKeys: false)?.reason
                == .key)
        // The detail never holds the key.
        let d = policy.refusal(
            device: "keyed", source: "1.2.3.4", key: "guess-guess-guess", carriesKeys: true)
        #expect(d?.detail.contains("guess") == false)
    }

    @Test(arguments: [
        ("[[device]]\nallow_from = []", "every [[device]] needs an id"),
        ("[[device]]\nid = \"a\"\nkey = \"short\"", "at least 16 bytes"),
        ("[[device]]\nid = \"a\"\nallow_from = [\"10.0.0.0/40\"]", "is not an IP address or range"),
        ("[[device]]\nid = \"a\"\n[[device]]\nid = \"a\"", "two [[device]] tables"),
        ("[[device]]\nid = \"a\"\nkye = \"x\"", "unknown key"),
        ("devices = 1", "unknown key"),
    ])
    func badFilesSayWhatAndWhere(_ c: (String, String)) {
        do {
            _ = try DevicePolicy.parse(c.0, file: "devices.toml")
            Issue.record("\(c.0) was taken")
        } catch {
            #expect("\(error)".contains(c.1), "\(error)")
            #expect("\(error)".contains("devices.toml"), "\(error)")
        }
    }
}
