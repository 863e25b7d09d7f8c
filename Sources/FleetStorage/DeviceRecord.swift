/// A device as the registry shows it.
public struct DeviceRecord: Sendable, Equatable {
    public var ident: String
    public var name: String?
    public var plate: String?
    public var vin: String?
    /// Added with `fleetctl devices add` (not only seen in traffic).
    public var registered: Bool
    public var positions: Int
    /// Time of the last stored fix, Unix ms.
    public var lastFix: Int64?
    /// Gated odometer, metres (0 before the first accepted fix).
    public var odometerM: Double = 0
    /// `device_silent` raised and no fix since.
    public var silent: Bool = false
    /// The group the vehicle belongs to (`GroupName`), or nil.
    public var group: String?

    public init(
        ident: String, name: String?, plate: String?, vin: String?, registered: Bool,
        positions: Int, lastFix: Int64?, odometerM: Double = 0, silent: Bool = false,
        group: String? = nil
    ) {
        self.group = group
        self.ident = ident
        self.name = name
        self.plate = plate
        self.vin = vin
        self.registered = registered
        self.positions = positions
        self.lastFix = lastFix
        self.odometerM = odometerM
        self.silent = silent
    }
}
