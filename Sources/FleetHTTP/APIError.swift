import FleetJSON
import HTTPTypes
import Hummingbird

/// An API error: its status and the JSON body every error has,
/// `{"error": "...", "detail": "..."}` (and `problems` for 422: every one).
public struct APIError: Error, Sendable {
    public var status: HTTPResponse.Status
    /// A short phrase (`bad parameter`, `not found`, …).
    public var error: String
    /// What exactly, naming the input.
    public var detail: String
    public var problems: [String] = []
    public var headers: HTTPFields = [:]

    public init(
        _ status: HTTPResponse.Status, _ error: String, _ detail: String, problems: [String] = []
    ) {
        self.status = status
        self.error = error
        self.detail = detail
        self.problems = problems
    }

    public static func badParameter(_ name: String, _ why: String) -> APIError {
        APIError(.badRequest, "bad parameter", "\(name): \(why)")
    }

    public static func notFound(_ what: String) -> APIError {
        APIError(.notFound, "not found", what)
    }

    public static func unauthorized(_ detail: String) -> APIError {
        var e = APIError(.unauthorized, "unauthorized", detail)
        e.headers[.wwwAuthenticate] = #"Bearer realm="fleetd""#
        return e
    }

    public var body: String {
        var s = "{\"error\":\(JSONValue.quote(error)),\"detail\":\(JSONValue.quote(detail))"
        if !problems.isEmpty {
            s += ",\"problems\":[" + problems.map(JSONValue.quote).joined(separator: ",") + "]"
        }
        return s + "}"
    }

    public var response: Response {
        var h = headers
        h[.contentType] = "application/json"
        h[.cacheControl] = "no-store"
        return Response(
            status: status, headers: h, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
