/// How much a fences document may hold (`[geofences] max_fences`,
/// `max_vertices`, `max_fence_vertices`): the index's memory and build time
/// grow with fences and vertices, and a document past these is refused as
/// a whole, naming the limit, before any index is built or file written.
public struct FenceLimits: Sendable, Equatable {
    /// Most fences in one document.
    public var maxFences = 200_000
    /// Most vertices in all fences together (rings' closing positions not counted).
    public var maxVertices = 10_000_000
    /// Most vertices in one fence.
    public var maxFenceVertices = 500_000

    public init() {}

    public init(maxFences: Int, maxVertices: Int, maxFenceVertices: Int) {
        self.maxFences = maxFences
        self.maxVertices = maxVertices
        self.maxFenceVertices = maxFenceVertices
    }

    /// What in `fences` goes past the limits (empty: nothing). Each problem
    /// names its setting; at most the first ten fences over their limit are
    /// listed.
    public func problems(_ fences: [Fence]) -> [FenceProblem] {
        var out: [FenceProblem] = []
        if fences.count > maxFences {
            out.append(
                FenceProblem(
                    featureIndex: nil, id: nil,
                    message:
                        "\(fences.count) fences, more than geofences.max_fences = \(maxFences)"))
        }
        var total = 0
        var over = 0
        for (i, f) in fences.enumerated() {
            let n = f.shape.vertexCount
            total += n
            if n > maxFenceVertices {
                over += 1
                if over <= 10 {
                    out.append(
                        FenceProblem(
                            featureIndex: i, id: f.id,
                            message:
                                "\(n) vertices, more than geofences.max_fence_vertices = \(maxFenceVertices)"
                        ))
                }
            }
        }
        if over > 10 {
            out.append(
                FenceProblem(
                    featureIndex: nil, id: nil,
                    message: "\(over - 10) more fences over geofences.max_fence_vertices"))
        }
        if total > maxVertices {
            out.append(
                FenceProblem(
                    featureIndex: nil, id: nil,
                    message:
                        "\(total) vertices in all, more than geofences.max_vertices = \(maxVertices)"
                ))
        }
        return out
    }
}
