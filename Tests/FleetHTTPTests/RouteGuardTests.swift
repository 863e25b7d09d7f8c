import FleetAuth
import FleetConfig
import FleetStorage
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import FleetHTTP

/// Every route of the route table, in process (Hummingbird's router test
/// framework: no socket, no daemon): what a stranger or a lesser role gets
/// is decided before any handler runs, so these answers hold for every
/// route, present and future, in seconds.
@Suite struct RouteGuardTests {
    static let viewerSecret = "fltk_viewer-secret-for-tests"
    static let adminSecret = "fltk_admin-secret-for-tests"

    /// The API's router over a store that holds two tokens and nothing else.
    static func application() -> (some ApplicationProtocol, [Route]) {
        var backend = EmptyBackend()
        for (secret, role) in [(viewerSecret, Role.viewer), (adminSecret, .admin)] {
            let hash = TokenSecret.hash(secret)
            backend.tokens[hash] = TokenRecord(
                name: role.rawValue, role: role, secretHash: hash, createdMs: 0, lastUsedMs: nil)
        }
        let settings = HTTPSettings()
        let auth = Authenticator(backend: backend, settings: settings)
        let deps = RouteDeps(
            backend: backend, auth: auth, hub: EventHub(settings: settings), settings: settings,
            logger: Logger(label: "test"))
        let routes = APIServer.routes(deps)
        let router = APIRouter(
            routes: routes, authenticator: auth, logger: Logger(label: "test"),
            served: { _, _, _ in })
        let app = Application(
            responder: CallbackResponder<APIContext> { request, context in
                await router.respond(request, context)
            })
        return (app, routes)
    }

    /// A concrete path for a route's pattern (`{id}` → `x`).
    static func path(_ route: Route) -> String {
        "/" + route.pattern.map { $0.hasPrefix("{") ? "x" : $0 }.joined(separator: "/")
    }

    static func bearer(_ secret: String) -> HTTPFields {
        var h = HTTPFields()
        h[.authorization] = "Bearer \(secret)"
        return h
    }

    @Test func withoutCredentialsEveryGuardedRouteIs401() async throws {
        let (app, routes) = Self.application()
        #expect(routes.filter { $0.role != nil }.count >= 20, "the route table is not all here")
        try await app.test(.router) { client in
            for route in routes where route.role != nil {
                let status = try await client.execute(uri: Self.path(route), method: route.method)
                    .status
                #expect(status == .unauthorized, "\(route.method) \(route.path): \(status)")
            }
        }
    }

    @Test func aWrongTokenIs401AndSaysSo() async throws {
        let (app, routes) = Self.application()
        try await app.test(.router) { client in
            for route in routes where route.role != nil {
                let r = try await client.execute(
                    uri: Self.path(route), method: route.method,
                    headers: Self.bearer("fltk_guessed"))
                #expect(r.status == .unauthorized, "\(route.method) \(route.path)")
                #expect(String(buffer: r.body).contains("not valid"))
            }
        }
    }

    @Test func aViewerIs403WhereaMoreThanViewerIsNeeded() async throws {
        let (app, routes) = Self.application()
        let guarded = routes.filter { ($0.role ?? .viewer) > .viewer }
        #expect(!guarded.isEmpty)
        try await app.test(.router) { client in
            for route in guarded {
                let status = try await client.execute(
                    uri: Self.path(route), method: route.method,
                    headers: Self.bearer(Self.viewerSecret)
                ).status
                #expect(status == .forbidden, "\(route.method) \(route.path): \(status)")
            }
        }
    }

    @Test func anUnknownOrRepeatedQueryParameterIs400OnEveryRoute() async throws {
        let (app, routes) = Self.application()
        try await app.test(.router) { client in
            for route in routes {
                let unknown = try await client.execute(
                    uri: Self.path(route) + "?zz_unknown=1", method: route.method,
                    headers: Self.bearer(Self.adminSecret))
                #expect(unknown.status == .badRequest, "\(route.method) \(route.path)")
                #expect(String(buffer: unknown.body).contains("zz_unknown"))
                guard let known = route.parameters.sorted().first else { continue }
                let twice = try await client.execute(
                    uri: Self.path(route) + "?\(known)=1&\(known)=2", method: route.method,
                    headers: Self.bearer(Self.adminSecret))
                #expect(twice.status == .badRequest, "\(route.method) \(route.path)")
            }
        }
    }

    @Test func anotherMethodOnAKnownPathIs405WithAllow() async throws {
        let (app, routes) = Self.application()
        try await app.test(.router) { client in
            for route in routes {
                let methods = Set(routes.filter { $0.path == route.path }.map(\.method))
                guard
                    let other = [HTTPRequest.Method.patch, .delete, .put, .post]
                        .first(where: { !methods.contains($0) })
                else { continue }
                let r = try await client.execute(uri: Self.path(route), method: other)
                #expect(r.status == .methodNotAllowed, "\(other) \(route.path)")
                #expect(r.headers[.allow]?.contains(route.method.rawValue) == true)
            }
        }
    }
}
