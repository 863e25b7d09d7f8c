import FleetProtocols
import FleetStorage
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Dispatches requests to routes: 404 for an unknown path, 405 (with
/// `Allow`) for a known path and another method, 400 for an unknown or
/// repeated query parameter, 401 without credentials, 403 for a role too
/// low; every error as `APIError`'s JSON. Never a 500 without a log line.
struct APIRouter: Sendable {
    let routes: [Route]
    let authenticator: Authenticator
    let logger: Logger
    /// Told of every answer, by route pattern (the `/metrics` counts).
    let served: @Sendable (_ route: String, _ method: String, _ status: Int) -> Void

    func respond(_ request: Request, _ context: APIContext) async -> Response {
        let segments = request.uri.path.split(separator: "/")
        let matching = routes.compactMap { r in r.match(segments).map { (r, $0) } }
        let response: Response
        do {
            response = try await dispatch(request, context, matching)
        } catch let e as APIError {
            response = e.response
        } catch let e as StoreError {
            logger.error("API \(request.method) \(request.uri.path): \(e)")
            response = APIError(.serviceUnavailable, "storage unavailable", e.action).response
        } catch {
            logger.error("API \(request.method) \(request.uri.path): \(error)")
            response =
                APIError(.internalServerError, "internal error", "\(type(of: error))")
                .response
        }
        // The pattern, not the path: one series per route, whatever the ids.
        let method =
            Self.methods.contains(request.method.rawValue) ? request.method.rawValue : "other"
        served(matching.first?.0.path ?? "unmatched", method, response.status.code)
        return response
    }

    /// Methods counted by name (others as `other`: the label stays bounded).
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    private func dispatch(
        _ request: Request, _ context: APIContext, _ matching: [(Route, [String: String])]
    ) async throws -> Response {
        guard !matching.isEmpty else {
            throw APIError.notFound("no such path: \(request.uri.path.prefix(200))")
        }
        let method = request.method == .head ? HTTPRequest.Method.get : request.method
        guard let (route, path) = matching.first(where: { $0.0.method == method }) else {
            var e = APIError(
                .methodNotAllowed, "method not allowed",
                "\(request.method) is not allowed on \(request.uri.path.prefix(200))")
            e.headers[.allow] = matching.map(\.0.method.rawValue).joined(separator: ", ")
            throw e
        }
        var query: [String: String] = [:]
        for (name, value) in FormEncoding.pairs(request.uri.query ?? "") {
            guard route.parameters.contains(name) else {
                let known = route.parameters.sorted().joined(separator: ", ")
                throw APIError.badParameter(
                    name.isEmpty ? "(empty name)" : String(name.prefix(40)),
                    "unknown parameter (known: \(known.isEmpty ? "none" : known))")
            }
            guard query[name] == nil else {
                throw APIError.badParameter(name, "given more than once")
            }
            query[name] = value
        }
        var identity: Identity?
        if let role = route.role {
            identity = try await authenticator.identify(
                bearer: Self.bearer(request), cookie: Self.cookie(request))
            guard let who = identity else {
                throw APIError.unauthorized(
                    "log in (POST /api/v1/session) or send Authorization: Bearer <token>")
            }
            guard who.role >= role else {
                throw APIError(
                    .forbidden, "forbidden",
                    "\(request.method) \(route.path) needs the \(role.rawValue) role; \(who.actor) is \(who.role.rawValue)"
                )
            }
        }
        return try await route.handler(
            APIRequest(
                request: request, context: context, path: path, query: query, identity: identity))
    }

    static func bearer(_ request: Request) -> String? {
        guard let h = request.headers[.authorization] else { return nil }
        let parts = h.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    static func cookie(_ request: Request) -> String? {
        request.cookies[Authenticator.cookieName]?.value
    }
}
