extension JSONValue {
    /// This value as an array of strings; otherwise (not an array, or an
    /// item that is no string) `[]`, with the problem appended to
    /// `problems` as `KEY: must be an array of strings, found …`.
    public func strings(_ key: String, problems: inout [String]) -> [String] {
        guard case .array(let items) = self else {
            problems.append("\(key): must be an array of strings, found \(kindName)")
            return []
        }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .string(let x) = item else {
                problems.append("\(key): must be an array of strings, found \(item.kindName) in it")
                return []
            }
            out.append(x)
        }
        return out
    }
}
