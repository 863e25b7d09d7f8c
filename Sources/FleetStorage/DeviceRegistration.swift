/// What registering a device says about the vehicle; nil leaves a value as it was.
public struct DeviceRegistration: Sendable, Equatable {
    public var ident: String
    public var name: String?
    public var plate: String?
    public var vin: String?
    /// The vehicle's group (`GroupName`), in either mode: nil keeps it, the
    /// empty string takes the vehicle out of its group.
    public var group: String?
    /// True: name, plate and vin become exactly these (nil clears), as an
    /// API `PUT` says; false: nil keeps what was there (`fleetctl devices add`).
    public var replace: Bool

    /// What the audit log says of the group: `group G`, `no group`, or nil (unchanged).
    public var groupAudit: String? { group.map { $0.isEmpty ? "no group" : "group \($0)" } }

    public init(
        ident: String, name: String? = nil, plate: String? = nil, vin: String? = nil,
        group: String? = nil, replace: Bool = false
    ) {
        self.group = group
        self.replace = replace
        self.ident = ident
        self.name = name
        self.plate = plate
        self.vin = vin
    }
}
