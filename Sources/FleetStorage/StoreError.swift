/// A storage failure, with the database path and what was being done.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let action: String
    public let underlying: String

    public init(path: String, action: String, underlying: any Error) {
        self.path = path
        self.action = action
        self.underlying = String(describing: underlying)
    }

    public var description: String { "\(path): \(action): \(underlying)" }
}
