/// `[devices]`: whether devices not in the registry are taken, and how
/// many new ones an open registry takes.
public struct DevicesConfig: Sendable, Equatable {
    /// Take fixes from devices not in the registry (`fleetctl devices add`).
    public var acceptUnknown = true
    /// With an open registry: new device ids taken from one source address
    /// in a window (`new_window_s`).
    public var newPerSource = 100
    /// With an open registry: new device ids taken in all in a window.
    public var newTotal = 10_000
    /// The window of the two budgets above, seconds.
    public var newWindowS = 3600
    /// Senders on this machine (loopback addresses) take new ids outside
    /// the budgets.
    public var newExemptLoopback = true
    /// A device silent this long (hours; `device_silent` raised and its
    /// state written) is dropped from the engine's memory; its state stays
    /// in the store and is read back when it is heard again. 0 = never.
    /// Not in a cluster (a node gives devices up through their leases).
    public var forgetAfterH = 168
    /// Per-device rules (`DevicePolicy`): a TOML file of `[[device]]`
    /// tables; "" for none. Read at start and on SIGHUP.
    public var policyFile = ""

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        acceptUnknown = try s.bool("accept_unknown", default: acceptUnknown)
        newPerSource = try s.int("new_per_source", default: newPerSource, range: 1...10_000_000)
        newTotal = try s.int("new_total", default: newTotal, range: 1...100_000_000)
        newWindowS = try s.int("new_window_s", default: newWindowS, range: 1...31_536_000)
        newExemptLoopback = try s.bool("new_exempt_loopback", default: newExemptLoopback)
        forgetAfterH = try s.int("forget_after_h", default: forgetAfterH, range: 0...87_600)
        policyFile = try s.string("policy_file", default: policyFile)
    }
}
