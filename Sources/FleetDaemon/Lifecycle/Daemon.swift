import FleetConfig
import FleetGeo
import FleetHTTP
import FleetProtocols
import FleetStorage
import FleetSystemd
import FleetTracking
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Opens the store the daemon writes to (the backend is chosen by the
/// program that runs the daemon: `fleetd` opens SQLite). Throws `StoreError`.
public typealias StoreOpener = @Sendable (DaemonConfig) throws -> any Store

/// fleetd's life: start-up, serving, reload and clean shutdown.
///
/// Start-up, in order: fences, store (migrated), device state (replayed
/// after a crash), the stages, the sockets; then every component runs as a
/// service of one `ServiceGroup` (swift-service-lifecycle) and `READY=1` is
/// sent. SIGTERM/SIGINT shut the group down gracefully, in the reverse of
/// the start order: `STOPPING=1`, the listeners stop reading (each queues
/// the batch in hand), retention stops, the tracking stage tracks what is
/// queued and hands on every state, the commit stage commits it and sends
/// the replies, the status file says "stopped"; then `run` returns. SIGHUP
/// reloads the fences file (an invalid file keeps the old fences), reopens
/// the alert log and re-reads the config file's `[[webhooks]]` (an invalid
/// entry keeps the old set). A start-up failure throws before anything runs.
public final class Daemon: Sendable {
    public let config: DaemonConfig
    let logger: Logger
    let notifier = SystemdNotifier()
    private let openStore: StoreOpener
    /// The config file, re-read on SIGHUP for its `[[webhooks]]` (nil: none).
    let configPath: String?
    /// Longest a graceful shutdown may take before the group is cancelled.
    static let shutdownLimit = Duration.seconds(60)

    public init(
        config: DaemonConfig, configPath: String? = nil, logger: Logger,
        openStore: @escaping StoreOpener
    ) {
        self.config = config
        self.configPath = configPath
        self.logger = logger
        self.openStore = openStore
    }

    /// Runs until SIGTERM or SIGINT. Throws a start-up error (fences, store,
    /// socket); returns normally after a clean shutdown.
    public func run() async throws {
        // A write past the file-size limit (RLIMIT_FSIZE) must fail with EFBIG like
        // a full disk, not kill the daemon: the commit is retried until it succeeds.
        signal(SIGXFSZ, SIG_IGN)
        // Sockets systemd passed (fleetd.socket), taken first and checked
        // against what fleetd can serve before anything else starts.
        let inherited = try assign(InheritedSockets.take())
        let (fences, fencesText) = try loadFences()
        let webhooks = try WebhookSync.resolve(config.webhooks)
        // Held until `run` returns (the kernel lets go of it at any exit).
        let lock = try InstanceLock(database: config.storage.database)
        defer { withExtendedLifetime(lock) {} }
        let store = try openStore(config)
        let membership = store.membership
        // A node of a cluster loads a device's state when it takes its lease.
        var states = membership == nil ? try store.loadStates() : [:]
        let opened =
            membership.map { "cluster node \($0.node), lease \($0.leaseMs) ms" }
            ?? "\(states.count) devices with state"
        logger.info("store \(store.location) open; \(opened)")
        let unwritten =
            membership == nil
            ? try StateReplay.run(
                store: store, fences: fences, settings: config.tracking.settings, states: &states)
            : (devices: [], fixes: 0)
        if !unwritten.devices.isEmpty {
            logger.notice(
                "replayed \(unwritten.fixes) fixes stored after the state checkpoint of \(unwritten.devices.count) devices"
            )
        }
        // The registry is read (and re-read every 2 s) only when unknown devices are refused.
        let reader = config.devices.acceptUnknown ? nil : try store.makeReader()
        let registered = try reader?.registeredDevices()

        let metrics = Metrics()
        MetricsBootstrap.install(metrics.registry)
        let queue = InboundQueue(
            capacity: config.engine.queueMaxFixes, maxDelayMs: Int64(config.engine.queueMaxDelayMs))
        let alertLog =
            config.alerts.logFile.isEmpty ? nil : try AlertLog(path: config.alerts.logFile)
        let handoff = CommitHandoff(capacity: 2)
        // A device silent for devices.forget_after_h leaves memory; its own
        // reader brings its state back when it is heard again.
        var forgetting: TrackingStage.Forgetting?
        if membership == nil, config.devices.forgetAfterH > 0 {
            let stateReader = try store.makeReader()
            forgetting = TrackingStage.Forgetting(
                afterMs: Int64(config.devices.forgetAfterH) * 3_600_000,
                recall: { device in try stateReader.deviceStates(device: device)[device] })
        }
        // The devices' groups: read now when fences are limited to groups
        // (their alerts depend on them from the first fix), then kept fresh.
        let deviceGroups = DeviceGroups()
        let groupsReader = try store.makeReader()
        if !FenceAudience(fences.fences).isEmpty {
            deviceGroups.load(try groupsReader.deviceGroups())
        }
        let tracking = TrackingStage(
            queue: queue, handoff: handoff, fences: fences, states: states,
            unwritten: unwritten.devices, metrics: metrics, config: config, membership: membership,
            forgetting: forgetting, groups: deviceGroups)
        // Replies last: what a sender may look at once acknowledged (the
        // alert log's lines, the counters) is already there.
        var sinks: [any CommitSink] = alertLog.map { [$0] } ?? []
        let journal =
            config.alerts.journal && Journal.connected()
            ? JournalAlerts(
                limit: config.alerts.journalBacklog, perS: config.alerts.journalPerS,
                metrics: metrics) : nil
        if let journal {
            sinks.append(journal)
            logger.info("alerts also go to the journal (FLEETD_ALERT_* fields)")
        }
        let httpOn = config.http.listen != nil || config.listen.osmand != nil
        if let a = config.http.listen { try TCPPortCheck.ensureFree(a, key: "http.listen") }
        if let a = config.listen.osmand { try TCPPortCheck.ensureFree(a, key: "listen.osmand") }
        // The HTTP side's hub is a sink; its readers are opened before the writer starts.
        let hub = httpOn ? EventHub(settings: config.http.settings, groups: deviceGroups) : nil
        let readers =
            httpOn
            ? try ReaderPool(
                store: store,
                count: config.storage.backend == .postgresql ? config.postgresql.poolSize : 4) : nil
        let board =
            httpOn
            ? TripBoard(
                states: states, tracker: Tracker(fences: fences, settings: config.tracking.settings)
            )
            : nil
        if let board { sinks.append(board) }
        let drivers = httpOn ? DriverBoard(states: states) : nil
        if let drivers { sinks.append(drivers) }
        if let hub { sinks.append(LiveSink(hub: hub)) }
        // Webhooks: the config's subscriptions stored, the deliveries told
        // of every change of the set, the outbox rung by each commit.
        let webhookChanges = try WebhookSync.apply(webhooks, to: store, actor: configActor)
        if !webhookChanges.isEmpty { logger.notice("webhooks: \(webhookChanges.description)") }
        let commitBox = Mutex<CommitStage?>(nil)
        let location = store.location
        let delivery = WebhookDelivery(
            perform: { job in
                guard let stage = commitBox.withLock({ $0 }) else {
                    throw StoreError(
                        path: location, action: "webhooks",
                        underlying: APIUnavailable("the commit stage is not running"))
                }
                try await stage.perform(job)
            }, reader: try store.makeReader(), logger: logger, metrics: metrics,
            ingestBehind: { [queue, batch = config.engine.batchMaxFixes] in
                queue.depth > batch
            })
        let replies = ReplySink(metrics: metrics)
        sinks += [delivery, metrics, replies]
        // Mail: the rules' planner and sender, when [[notifications]] are set.
        let mail = try makeMailDelivery(
            reader: try store.makeReader(),
            fenceNames: Dictionary(
                fences.fences.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a }),
            groups: deviceGroups)
        if let mail { sinks.append(mail) }
        let commit = CommitStage(
            store: store, handoff: handoff, sinks: sinks, metrics: metrics, logger: logger)
        commitBox.withLock { $0 = commit }
        commit.onWebhooksChanged { delivery.update($0) }
        mail?.attach(commit)
        try commit.reloadWebhooks(store)
        if !commit.webhookNames.isEmpty {
            logger.info("webhooks: \(commit.webhookNames.joined(separator: ", "))")
        }
        // An open registry's budget of new ids, counted from the devices
        // in the store (with tracking state, registered, or, on a cluster
        // node, any the nodes took: read again while it runs).
        var newDevices: NewDeviceBudget?
        if registered == nil {
            var known = Set(states.keys)
            let idReader = try store.makeReader()
            known.formUnion(
                membership == nil
                    ? try idReader.registeredDevices() : try idReader.deviceIdents())
            newDevices = NewDeviceBudget(
                limits: .init(
                    perSource: config.devices.newPerSource, total: config.devices.newTotal,
                    windowMs: Int64(config.devices.newWindowS) * 1000,
                    exemptLoopback: config.devices.newExemptLoopback),
                known: known)
        }
        let door = Door(
            queue: queue, metrics: metrics, screen: config.screen, logger: logger,
            rejectLogPerSecond: config.log.rejectLogPerSecond, registered: registered,
            newDevices: newDevices, policy: try DevicePolicy.load(path: config.devices.policyFile))
        let listeners = try bindListeners(door: door, inherited: inherited)
        if TrackerProtocol.carried(by: .tcp).contains(where: {
            inherited[$0.key] != nil || config.listen.address(of: $0) != nil
        }) {
            let files = Self.raiseFileLimit()
            if files < config.tcp.maxConnections + 1000 {
                logger.warning(
                    "tcp.max_connections is \(config.tcp.maxConnections) but fleetd may open only \(files) files: raise LimitNOFILE (ulimit -n)"
                )
            }
        }
        let connections = ConnectionTable(
            maxTotal: config.tcp.maxConnections, maxPerAddress: config.tcp.maxConnectionsPerAddress)
        let desk = CommandDesk(
            table: connections, commit: commit, reader: try store.makeReader(), door: door,
            expiryS: config.tcp.commandExpiryS
        ) { [hub] command in hub?.publish(command: command) }
        let streams: [StreamListener]
        do {
            streams = try await bindStreams(
                door: door, table: connections, desk: desk, inherited: inherited)
        } catch {
            for l in listeners { l.socket.close() }
            throw error
        }
        let status = StatusReporter(
            metrics: metrics, engine: tracking, notifier: notifier, logger: logger,
            database: config.storage.database)
        let backend: DaemonAPI?
        if let readers, let board, let drivers {
            backend = DaemonAPI(
                readers: readers, commit: commit, tracking: tracking, door: door, desk: desk,
                status: status, metrics: metrics, board: board, drivers: drivers,
                fencesFile: config.geofences.uploadTarget,
                fenceLimits: config.geofences.limits,
                fencesText: fencesText, hub: hub)
        } else {
            backend = nil
        }
        status.liveness.add("the engine") { tracking.heartbeat.load(ordering: .relaxed) }
        status.liveness.add("the writer") { commit.heartbeat.load(ordering: .relaxed) }
        for l in listeners {
            status.liveness.add("listener \(l.name)") { l.lastSignOfLife }
        }
        if httpOn { status.liveness.watchEventLoops() }
        let listening =
            (listeners.map { "\($0.name) \($0.socket.local)" }
            + streams.map { "\($0.name) \($0.local) (TCP)" })
            .joined(separator: ", ")
        status.listening = listening
        if listeners.isEmpty, streams.isEmpty, config.listen.osmand == nil {
            logger.warning("no listen address configured: nothing will arrive")
        }

        // Started in this order, stopped in the reverse one.
        var services: [any Service] = [
            // Stopped last: the commit stage sends its last replies on these sockets.
            ComponentService(
                "sockets", start: {},
                stop: {
                    for l in listeners { l.socket.close() }
                    connections.closeAll()
                }),
            ComponentService(
                "status", start: status.start,
                stop: { [metrics, logger] in
                    status.stop()
                    let m = metrics.snapshot()
                    logger.notice(
                        "stopped: \(m.fixesStored) fixes stored, \(m.alerts) alerts, \(m.totalRejects) rejected this run"
                    )
                }),
            ComponentService(
                "commit stage", start: commit.start,
                stop: { [logger] in
                    commit.finish()
                    replies.flush()  // the last commits' replies sent
                    // Every state written: the other nodes may take the devices at once.
                    do {
                        try membership?.leave()
                    } catch {
                        logger.warning("cluster: leases not given up (they expire): \(error)")
                    }
                    if let journal {
                        journal.flush()
                        let leftOut = metrics.snapshot().journalLeftOut
                        if leftOut > 0 {
                            logger.warning(
                                "journal: \(leftOut) alerts were left out (the journal lagged)")
                        }
                    }
                }),
            delivery,
        ]
        if let mail { services.append(mail) }
        if !config.maintenance.isEmpty {
            services.append(
                MaintenanceWatch(
                    plans: config.maintenance, reader: try store.makeReader(), stage: commit,
                    handoff: handoff, logger: logger, intervalS: config.alerts.maintenanceCheckS))
        }
        services += [
            ComponentService(
                "tracking stage", start: tracking.start,
                stop: {
                    commit.stopping.store(true, ordering: .relaxed)
                    tracking.finish()
                }),
            RetentionService(
                retention: Retention(
                    retainDays: config.storage.retainDays, stage: commit, logger: logger)),
        ]
        services.append(desk.service)
        services.append(
            StoreRefresh.deviceGroups(
                deviceGroups, reader: groupsReader,
                needed: { deviceGroups.neededByFences || (hub?.groupedStreams ?? 0) > 0 }
            ).service)
        if let registry = door.registered, let reader {
            services.append(StoreRefresh.registry(registry, reader: reader).service)
        }
        if membership != nil, let budget = door.newDevices {
            services.append(
                StoreRefresh.knownDevices(budget, reader: try store.makeReader(), every: 10)
                    .service)
        }
        services.append(
            ReloadService { [self] in
                reload(tracking: tracking, alertLog: alertLog, api: backend, commit: commit)
                reloadPolicy(door)
            })
        if let membership, let hub, let readers {
            let feed = ClusterFeed(
                membership: membership, hub: hub, afterId: try readers.reader().lastAlertId())
            services.append(ComponentService("cluster feed", start: feed.start, stop: feed.stop))
        }
        // The hub's rounds run in the background, on a loop of their own.
        let hubLoop = backend != nil && hub != nil ? BackgroundEventLoop() : nil
        if let backend, let hub, let hubLoop {
            services.append(makeAPIServer(backend: backend, hub: hub, hubLoop: hubLoop))
        }
        for l in listeners {
            services.append(
                ComponentService("listener \(l.name)", start: l.start, stop: l.stop))
        }
        for l in streams {
            services.append(
                ComponentService("TCP listener \(l.name)", start: l.start, stop: l.stop))
        }
        let expected = (config.http.listen == nil ? 0 : 1) + (config.listen.osmand == nil ? 0 : 1)
        services.append(
            ComponentService(
                "readiness",
                start: { [notifier, logger] in
                    if let api = backend {
                        // The HTTP servers bind as their service starts: wait (bounded) for them.
                        let deadline = Date().addingTimeInterval(10)
                        while api.bound.load(ordering: .relaxed) < expected, Date() < deadline,
                            !Task.isCancelled
                        {
                            Thread.sleep(forTimeInterval: 0.01)
                        }
                        guard api.bound.load(ordering: .relaxed) >= expected else {
                            logger.error("the HTTP servers did not start listening: not ready")
                            return
                        }
                    }
                    let listening =
                        ([status.listening] + (backend?.addresses.withLock { $0 } ?? []))
                        .filter { !$0.isEmpty }.joined(separator: ", ")
                    status.listening = listening
                    backend?.ready.store(true, ordering: .relaxed)
                    notifier.ready(
                        status: "ready; listening on \(listening.isEmpty ? "nothing" : listening)")
                    logger.notice(
                        "ready: \(fences.fences.count) fences; listening on \(listening.isEmpty ? "nothing" : listening)"
                    )
                },
                stop: { [notifier, logger] in
                    backend?.ready.store(false, ordering: .relaxed)
                    notifier.stopping(status: "stopping: committing held fixes")
                    logger.notice("stopping: no more reads; committing what is held")
                }))
        var group = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = Self.shutdownLimit
        do {
            try await ServiceGroup(configuration: group).run()
        } catch {
            await hubLoop?.shutdown()
            throw error
        }
        await hubLoop?.shutdown()
    }

    /// The HTTP servers over the daemon's `backend`, fed by `hub`; each
    /// bound address is noted in the backend (for readiness and the status).
    private func makeAPIServer(
        backend: DaemonAPI, hub: EventHub, hubLoop: BackgroundEventLoop
    ) -> APIServer {
        APIServer(
            settings: config.http.settings,
            osmand: config.listen.osmand.map { (host: $0.host, port: $0.port) }, backend: backend,
            hub: hub, hubExecutor: hubLoop, logger: logger
        ) { [logger] name, address in
            logger.info("\(name) listening on \(address) (TCP)")
            backend.addresses.withLock { $0.append("\(name) \(address)") }
            backend.bound.add(1, ordering: .relaxed)
        }
    }

    /// The audit log's actor for changes the config file makes.
    private var configActor: String { "config:" + (configPath ?? "(defaults)") }

    /// SIGHUP: reopens the alert log, reloads the fences file and the
    /// config file's webhooks (an invalid one keeps the old set).
    private func reload(
        tracking: TrackingStage, alertLog: AlertLog?, api: DaemonAPI?, commit: CommitStage
    ) {
        reloadWebhooks(commit: commit)
        let fencesFile = config.geofences.effectiveFile
        notifier.reloading(status: "reloading fences from \(fencesFile)")
        if let alertLog {
            do {
                try alertLog.reopen()
            } catch {
                logger.error("alert log not reopened, writing to the old file: \(error)")
            }
        }
        do {
            let (fresh, text) = try FenceFile.loadWithText(
                fencesFile, limits: config.geofences.limits)
            tracking.replaceFences(fresh)
            api?.replaceFences(fresh)
            api?.fences.withLock { $0 = text }
            if fencesFile.isEmpty {
                logger.notice("no fences file configured: still running with no fences")
            } else {
                logger.notice("reloaded \(fresh.fences.count) fences from \(fencesFile)")
            }
        } catch {
            logger.error("fences not reloaded, keeping the old ones: \(error)")
        }
        notifier.send("READY=1")
    }

    /// SIGHUP's part for `devices.policy_file`: read again; an invalid
    /// file keeps the rules in use.
    private func reloadPolicy(_ door: Door) {
        let path = config.devices.policyFile
        guard !path.isEmpty else { return }
        do {
            let fresh = try DevicePolicy.load(path: path)
            door.policy.withLock { $0 = fresh }
            logger.notice("reloaded the rules of \(fresh.rules.count) devices from \(path)")
        } catch {
            logger.error("device rules not reloaded, keeping the old ones: \(error)")
        }
    }

    /// SIGHUP's part for `[[webhooks]]`: re-reads the config file; when
    /// every entry is valid (secrets readable), stores the set in one job
    /// of the commit stage (the outbox follows from the next commit).
    private func reloadWebhooks(commit: CommitStage) {
        guard let configPath else { return }
        let wanted: [(WebhookSubscription, since: Int64?)]
        do {
            wanted = try WebhookSync.resolve(DaemonConfig.load(path: configPath).webhooks)
        } catch {
            logger.error("webhooks not reloaded, keeping the old ones: \(error)")
            return
        }
        let actor = configActor
        commit.schedule { [logger] store in
            do throws(StoreError) {
                let changes = try WebhookSync.apply(wanted, to: store, actor: actor)
                try commit.reloadWebhooks(store)
                logger.notice(
                    "webhooks reloaded: \(changes.isEmpty ? "no change" : changes.description)")
            } catch {
                logger.error("webhooks not reloaded: \(error)")
            }
        }
    }

    /// One listener per protocol over UDP (`TrackerProtocol`): on the
    /// socket systemd passed under the protocol's name when there is one
    /// (socket activation; the config's address for it is then not used),
    /// else on the configured address, bound now: a socket that cannot be
    /// bound is a start-up error naming its address.
    private func bindListeners(door: Door, inherited: [String: Int32]) throws -> [UDPListener] {
        var listeners: [UDPListener] = []
        do {
            for proto in TrackerProtocol.carried(by: .udp) {
                let socket: UDPSocket
                if let fd = inherited[proto.key] {
                    socket = UDPSocket(
                        adopting: fd, receiveBuffer: config.listen.receiveBufferBytes)
                    logger.info("\(proto.key): using the socket systemd passed (\(socket.local))")
                } else if let address = config.listen.address(of: proto) {
                    socket = try bind(address, key: proto.key)
                } else {
                    continue
                }
                guard let format = proto.makeFormat(nmeaDevices: config.nmea.devices) else {
                    continue  // carried by UDP: every one has a format
                }
                listeners.append(
                    UDPListener(
                        socket: socket, format: format, door: door,
                        badPerSource: config.udp.badItemsPerSourceS,
                        nice: Int32(config.udp.receiverNice), logger: logger))
            }
        } catch {
            for l in listeners { l.socket.close() }
            throw error
        }
        return listeners
    }

    /// Raises the soft limit on open files to the hard one (each TCP
    /// connection holds a descriptor; Debian's soft default is 1 024) and
    /// returns the limit in force.
    static func raiseFileLimit() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// One TCP door per protocol over TCP that is on: on the stream socket
    /// systemd passed under its name, else on its `[listen]` address,
    /// bound now (a port in use is a start-up error naming it).
    private func bindStreams(
        door: Door, table: ConnectionTable, desk: CommandDesk, inherited: [String: Int32]
    ) async throws -> [StreamListener] {
        var out: [StreamListener] = []
        do {
            for proto in TrackerProtocol.carried(by: .tcp) {
                let fd = inherited[proto.key]
                let address = config.listen.address(of: proto)
                guard fd != nil || address != nil else { continue }
                let l = try await StreamListener.bind(
                    proto, address: address, inherited: fd, door: door, table: table, desk: desk,
                    config: config.tcp)
                logger.info("\(proto.key): listening on \(l.local) (TCP)")
                out.append(l)
            }
        } catch {
            for l in out { l.stop() }
            throw error
        }
        return out
    }

    /// The fences index and the file's text (empty when there is none).
    private func loadFences() throws -> (FenceIndex, [UInt8]) {
        let f = try FenceFile.loadConfigured(config.geofences)
        if f.missingDefault { logger.warning("\(f.note)") } else { logger.info("\(f.note)") }
        return (f.index, f.text)
    }

    /// Which protocol each passed socket serves, by `TrackerProtocol` key:
    /// a datagram socket serves a protocol over UDP, a stream socket one
    /// over TCP (the TCP doors); one named after a protocol
    /// (`FileDescriptorName=json`, as `systemd-socket-activate --fdname=`
    /// sets it) serves that one; any other name (systemd names every socket
    /// of one unit alike, by default the unit's name) serves the protocol
    /// of its kind whose `[listen]` port is the socket's port (a stream
    /// socket on a TCP door's usual port turns that door on). Refused,
    /// naming the socket: `http` and `osmand` (the HTTP library binds its
    /// own listening sockets and cannot serve a passed one, so fleetd binds
    /// `[http] listen` and `[listen] osmand` itself), a port no protocol of
    /// its kind is configured on, two sockets for one protocol.
    func assign(_ passed: InheritedSockets) throws -> [String: Int32] {
        let udp = TrackerProtocol.carried(by: .udp)
        let tcp = TrackerProtocol.carried(by: .tcp)
        var out: [String: Int32] = [:]
        for s in passed.sockets {
            if s.name == "http" || TrackerProtocol(rawValue: s.name)?.transport == .http {
                throw StartupError(
                    "systemd passed a socket named \"\(s.name)\": fleetd binds its HTTP and OsmAnd ports itself (the HTTP server cannot serve a passed socket); remove it from the socket unit"
                )
            }
            let port = UDPSocket.localAddress(s.fd).port
            // Datagram sockets serve the UDP protocols, stream sockets the TCP doors.
            let candidates = s.isDatagram ? udp : tcp
            let keys = candidates.map(\.key)
            // A TCP door that is off in the config is turned on by a passed
            // socket on its usual port (the shipped fleetd.socket's lines).
            let key =
                keys.contains(s.name)
                ? s.name
                : keys.first { config.listen.addresses[$0]?.port == port }
                    ?? (s.isDatagram ? nil : tcp.first { $0.defaultPort == port }?.key)
            guard let key else {
                throw StartupError(
                    "systemd passed a \(s.isDatagram ? "datagram" : "stream") socket on port \(port) (\(s.name)) that no [listen] address of a protocol over \(s.isDatagram ? "UDP" : "TCP") names; name it \(TrackerProtocol.list(candidates)) (FileDescriptorName=) or set that port in [listen]"
                )
            }
            guard out[key] == nil else {
                throw StartupError("systemd passed two sockets for \(key)")
            }
            out[key] = s.fd
        }
        return out
    }

    /// Binds one listening socket; warns when the kernel caps its receive buffer.
    private func bind(_ address: ListenAddress, key: String) throws -> UDPSocket {
        let socket = try Self.bindUDP(
            address, key: key, receiveBuffer: config.listen.receiveBufferBytes)
        let granted = socket.receiveBufferGranted
        if granted < config.listen.receiveBufferBytes {
            // Linux reports double the usable size; below the request means capped by net.core.rmem_max.
            logger.warning(
                "kernel granted a \(granted)-byte receive buffer on \(address), asked \(config.listen.receiveBufferBytes) (raise net.core.rmem_max)"
            )
        }
        return socket
    }

    /// Binds `address` (`listen.KEY`); a failure is a `StartupError` naming both.
    static func bindUDP(_ address: ListenAddress, key: String, receiveBuffer: Int) throws
        -> UDPSocket
    {
        do {
            return try UDPSocket(binding: address, receiveBuffer: receiveBuffer)
        } catch {
            throw StartupError("cannot listen on \(address) (listen.\(key)): \(error)")
        }
    }
}
