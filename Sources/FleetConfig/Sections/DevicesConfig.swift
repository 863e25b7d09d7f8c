/// `[devices]`: whether devices not in the registry are taken.
public struct DevicesConfig: Sendable, Equatable {
    /// Take fixes from devices not in the registry (`fleetctl devices add`).
    public var acceptUnknown = true

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        acceptUnknown = try s.bool("accept_unknown", default: acceptUnknown)
    }
}
