import FleetStorage
import HTTPTypes
import Hummingbird

/// One operation of the API: method, path pattern (`{name}` segments are
/// parameters), the least role it needs (nil: anyone), the query
/// parameters it knows (others are a 400), and its handler.
struct Route: Sendable {
    let method: HTTPRequest.Method
    let pattern: [String]
    let role: Role?
    let parameters: Set<String>
    let handler: @Sendable (APIRequest) async throws -> Response

    init(
        _ method: HTTPRequest.Method, _ path: String, role: Role?, parameters: Set<String> = [],
        _ handler: @escaping @Sendable (APIRequest) async throws -> Response
    ) {
        self.method = method
        self.pattern = path.split(separator: "/").map(String.init)
        self.role = role
        self.parameters = parameters
        self.handler = handler
    }

    var path: String { "/" + pattern.joined(separator: "/") }

    /// The path's parameters when `segments` match the pattern; nil otherwise.
    func match(_ segments: [Substring]) -> [String: String]? {
        guard segments.count == pattern.count else { return nil }
        var out: [String: String] = [:]
        for (p, s) in zip(pattern, segments) {
            if p.hasPrefix("{") {
                out[String(p.dropFirst().dropLast())] =
                    String(s).removingPercentEncoding ?? String(s)
            } else if p != s {
                return nil
            }
        }
        return out
    }
}
