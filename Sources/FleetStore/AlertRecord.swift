/// A stored alert, as readers see it.
public struct AlertRecord: Sendable, Equatable {
    /// Increasing id: a later commit never gets a smaller one.
    public var id: Int64
    /// Unix milliseconds.
    public var time: Int64
    public var device: String
    public var type: String
    public var fence: String?
    public var lat: Double?
    public var lon: Double?
    /// Details as a JSON object text (`duration_s`, `crossed`), or nil.
    public var details: String?
}
