/// A value held out of line and never changed in place: a struct that
/// keeps a large, rarely present or rarely read part in one of these stays
/// small wherever it is stored in numbers, and still behaves as a value (a
/// copy shares the box; setting the part makes a new box). Used for a
/// fix's extras (`Fix.extra`), a rewind's states and an outcome's state.
public final class Frozen<Value: Sendable>: Sendable {
    public let value: Value

    public init(_ value: Value) { self.value = value }
}

extension Frozen: Equatable where Value: Equatable {
    public static func == (a: Frozen, b: Frozen) -> Bool { a === b || a.value == b.value }
}
