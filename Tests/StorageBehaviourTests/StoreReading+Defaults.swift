import FleetStorage

extension StoreReading {
    /// Alerts after `afterId`, all of them (the tests' databases are small).
    func alerts(afterId: Int64 = 0) throws -> [AlertRecord] {
        try alerts(afterId: afterId, limit: 10_000, filter: AlertFilter())
    }

    /// A device's positions, all of them.
    func positions(device: String) throws -> [PositionRecord] {
        try positions(device: device, limit: 10_000)
    }
}
