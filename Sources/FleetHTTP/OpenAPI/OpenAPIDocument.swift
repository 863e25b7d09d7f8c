import Hummingbird

/// `GET /api/v1/openapi.json`: the API described in OpenAPI 3.1
/// (https://spec.openapis.org/oas/v3.1.0), written by hand in the resource
/// file `openapi.json` beside this one (compiled in with SwiftPM's
/// `embedInCode`). Kept true in one place, `OpenAPIDocumentTests`: every
/// route of the route table with its method, least role (401/403 answers)
/// and query parameters is in it, and nothing else; and by the end-to-end
/// run of schemathesis against a live daemon. Served without credentials:
/// it holds no data.
enum OpenAPIDocument {
    static func make(_ d: RouteDeps) -> [Route] {
        [Route(.get, "/api/v1/openapi.json", role: nil) { _ in Replies.json(json) }]
    }

    /// The document. Add operations and fields; never rename one.
    static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
