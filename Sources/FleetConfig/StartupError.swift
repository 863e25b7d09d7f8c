/// A start-up failure with a message for the operator.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
