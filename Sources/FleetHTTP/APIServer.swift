import FleetConfig
import FleetStorage
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// fleetd's HTTP side, one `Service` of the daemon's group: the API server
/// (`[http] listen`), the OsmAnd server (`[listen] osmand`) when configured,
/// and the event hub. On graceful shutdown the event streams end, then the
/// servers finish their in-flight requests (OsmAnd requests wait for their
/// commit, which the commit stage, stopped after this service, still makes).
public final class APIServer: Service, Sendable {
    public let hub: EventHub
    private let settings: HTTPSettings
    private let backend: any APIBackend
    private let osmand: (host: String, port: Int)?
    private let logger: Logger
    private let auth: Authenticator
    /// Called once a server is listening, with its name and bound address.
    private let onListening: @Sendable (String, String) -> Void
    /// The HTTP connections of both servers, against their limits.
    let connections: HTTPConnections
    /// Where the event hub's rounds run (the daemon's background loop, so
    /// formatting a storm's alerts for the streams waits for idle cores);
    /// nil: the shared threads.
    private let hubExecutor: (any TaskExecutor)?

    /// `hub` is the event hub the commit stage feeds (`EventHub(settings:)`,
    /// made before the stages); `settings.host` nil turns the API server off.
    public init(
        settings: HTTPSettings, osmand: (host: String, port: Int)?, backend: any APIBackend,
        hub: EventHub, hubExecutor: (any TaskExecutor)? = nil, logger: Logger,
        onListening: @escaping @Sendable (String, String) -> Void = { _, _ in }
    ) {
        self.settings = settings
        self.backend = backend
        self.osmand = osmand
        self.logger = logger
        self.onListening = onListening
        self.hub = hub
        self.hubExecutor = hubExecutor
        auth = Authenticator(backend: backend, settings: settings)
        connections = HTTPConnections(
            maxTotal: settings.maxConnections, maxPerAddress: settings.maxConnectionsPerAddress,
            trusted: settings.trustedProxies)
    }

    public func run() async throws {
        var services: [any Service] = []
        if let host = settings.host {
            let deps = RouteDeps(
                backend: backend, auth: auth, hub: hub, settings: settings, logger: logger)
            let backend = backend
            let router = APIRouter(
                routes: Self.routes(deps) + ConsoleRoutes.make(deps)
                    + ShareRoutes.publicRoutes(deps), authenticator: auth,
                logger: logger,
                served: { backend.served(route: $0, method: $1, status: $2) })
            services.append(
                app(
                    "http", host, settings.port,
                    CallbackResponder { request, context in await router.respond(request, context) }
                ))
        }
        if let (host, port) = osmand {
            let backend = backend, maxBody = min(settings.maxBodyBytes, 1 << 20)
            let trusted = settings.trustedProxies
            services.append(
                app(
                    "osmand", host, port,
                    CallbackResponder { request, context in
                        await OsmAndResponder.respond(
                            request, context, backend: backend, maxBody: maxBody, trusted: trusted)
                    }))
        }
        guard !services.isEmpty else { return }
        let hub = hub, auth = auth, backend = backend, logger = logger, hubExecutor = hubExecutor
        var config = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, logger: logger)
        // What has not finished in time is cut off (the commit stage still waits behind).
        config.maximumGracefulShutdownDuration = Self.shutdownLimit
        let servers = ServiceGroup(configuration: config)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask(executorPreference: hubExecutor) { await hub.run() }
            group.addTask {
                // Token use, written every minute (and once at the end).
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(60))
                    let used = auth.takeTokenUse()
                    if !used.isEmpty {
                        _ = try? await backend.change { store throws(StoreError) in
                            try store.tokensUsed(used)
                        }
                    }
                }
            }
            try await withGracefulShutdownHandler {
                try await servers.run()
            } onGracefulShutdown: {
                // Streams end first, so the servers' in-flight requests can finish.
                logger.info("http: ending \(hub.streams) event streams")
                hub.close()
            }
            hub.close()
            group.cancelAll()
        }
    }

    /// Longest the servers may take to finish their requests at shutdown.
    static let shutdownLimit = Duration.seconds(10)

    private func app(
        _ name: String, _ host: String, _ port: Int, _ responder: CallbackResponder<APIContext>
    ) -> Application<CallbackResponder<APIContext>> {
        let onListening = onListening
        let connections = connections
        let requestTimeout = TimeAmount.seconds(Int64(settings.requestTimeoutS))
        return Application(
            responder: responder,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        HTTPConnectionGuard(
                            connections: connections, requestTimeout: requestTimeout)
                    ],
                    idleTimeout: .seconds(Int64(settings.idleTimeoutS)))),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                onListening(
                    name,
                    channel.localAddress.map { "\($0.ipAddress ?? host):\($0.port ?? port)" }
                        ?? "\(host):\(port)")
            },
            logger: logger)
    }

    static func routes(_ d: RouteDeps) -> [Route] {
        HealthRoutes.make(d) + SessionRoutes.make(d) + DeviceRoutes.make(d) + PositionRoutes.make(d)
            + AlertRoutes.make(d) + TripRoutes.make(d) + FenceRoutes.make(d) + StatusRoutes.make(d)
            + EventRoutes.make(d) + VehicleRoutes.make(d) + ReportRoutes.make(d)
            + WebhookRoutes.make(d) + MetricsRoutes.make(d) + CommandRoutes.make(d)
            + ShareRoutes.make(d) + MaintenanceRoutes.make(d) + UserRoutes.make(d)
            + NotificationRoutes.make(d)
            + OpenAPIDocument.make(d)
    }
}
