/// What registering a device says about the vehicle; nil leaves a value as it was.
public struct DeviceRegistration: Sendable, Equatable {
    public var ident: String
    public var name: String?
    public var plate: String?
    public var vin: String?
    /// True: name, plate and vin become exactly these (nil clears), as an
    /// API `PUT` says; false: nil keeps what was there (`fleetctl devices add`).
    public var replace: Bool

    public init(
        ident: String, name: String? = nil, plate: String? = nil, vin: String? = nil,
        replace: Bool = false
    ) {
        self.replace = replace
        self.ident = ident
        self.name = name
        self.plate = plate
        self.vin = vin
    }
}
