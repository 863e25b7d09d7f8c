/// One thing wrong with one feature of a fence file.
public struct FenceProblem: Sendable, Equatable, CustomStringConvertible {
    /// 0-based index of the feature in `features`, nil for file-level problems.
    public let featureIndex: Int?
    /// The feature's id, when it has one.
    public let id: String?
    /// What is wrong, naming the geometry part (polygon, ring, position) where it applies.
    public let message: String

    public init(featureIndex: Int?, id: String?, message: String) {
        self.featureIndex = featureIndex
        self.id = id
        self.message = message
    }

    public var description: String {
        var where_ = ""
        if let featureIndex { where_ = "feature \(featureIndex)" }
        if let id { where_ += where_.isEmpty ? "id \"\(id)\"" : " (id \"\(id)\")" }
        return where_.isEmpty ? message : "\(where_): \(message)"
    }
}

/// A fence file that cannot be loaded, with every problem found in it.
public struct FenceFileError: Error, Sendable, CustomStringConvertible {
    /// The file's path as given (or a label for in-memory input).
    public let file: String
    public let problems: [FenceProblem]

    public init(file: String, problems: [FenceProblem]) {
        self.file = file
        self.problems = problems
    }

    public var description: String {
        let noun = problems.count == 1 ? "problem" : "problems"
        return "\(file): \(problems.count) \(noun)\n"
            + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}
