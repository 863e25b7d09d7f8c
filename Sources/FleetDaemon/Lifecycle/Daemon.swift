import FleetGeo
import FleetSQLite
import FleetStorage
import FleetSystemd
import FleetTracking
import Foundation
import Logging

/// fleetd's life: start-up, serving, reload and clean shutdown.
///
/// Start-up order: fences, database (migrated), device state, engine, UDP
/// sockets, then `READY=1`. SIGTERM/SIGINT: `STOPPING=1`, stop reading,
/// commit what is held, send the pending replies, close, exit 0. SIGHUP:
/// reload the fences file (an invalid file keeps the old fences).
public final class Daemon: Sendable {
    public let config: DaemonConfig
    let logger: Logger
    let notifier = SystemdNotifier()

    public init(config: DaemonConfig, logger: Logger) {
        self.config = config
        self.logger = logger
    }

    /// Runs until SIGTERM or SIGINT. Throws a start-up error (fences, database,
    /// socket); returns normally after a clean shutdown.
    public func run() throws {
        // A write past the file-size limit (RLIMIT_FSIZE) must fail with EFBIG like
        // a full disk, not kill the daemon: the commit is retried until it succeeds.
        signal(SIGXFSZ, SIG_IGN)
        let fences = try loadFences()
        let writer = try StoreWriter(path: config.database, synchronous: config.synchronous)
        var states = try writer.loadStates()
        logger.info(
            "database \(config.database) open (WAL, synchronous=\(config.synchronous.rawValue)); \(states.count) devices with state"
        )
        let unwritten = try StateReplay.run(
            writer: writer, fences: fences, settings: config.tracking, states: &states)
        if !unwritten.devices.isEmpty {
            logger.notice(
                "replayed \(unwritten.fixes) fixes stored after the state checkpoint of \(unwritten.devices.count) devices"
            )
        }

        let checkpointer = try WALCheckpointer(path: config.database)
        checkpointer.start { [logger] error in
            if let error {
                logger.warning("WAL checkpoints failing (retried every 0.2 s): \(error)")
            } else {
                logger.notice("WAL checkpoints resumed")
            }
        }
        let metrics = Metrics()
        let queue = InboundQueue(
            capacity: config.queueMaxFixes, maxDelayMs: Int64(config.queueMaxDelayMs))
        let alertLog = config.alertLogFile.isEmpty ? nil : try AlertLog(path: config.alertLogFile)
        let engine = Engine(
            queue: queue, writer: writer, fences: fences, states: states,
            unwritten: unwritten.devices, metrics: metrics,
            config: config, logger: logger, alertLog: alertLog)
        engine.start()
        let door = Door(
            queue: queue, metrics: metrics, screen: config.screen, logger: logger,
            rejectLogPerSecond: config.rejectLogPerSecond,
            registered: config.acceptUnknown
                ? nil : try StoreReader(path: config.database).registeredDevices())
        // The registry changes under `fleetctl devices`: re-read it every 2 s.
        // (Created only when used: libdispatch traps on releasing a source never resumed.)
        var registryTimer: (any DispatchSourceTimer)?
        if !config.acceptUnknown, let registered = door.registered {
            let reader = try StoreReader(path: config.database)
            let timer = DispatchSource.makeTimerSource(
                queue: DispatchQueue(label: "fleetd.registry"))
            registryTimer = timer
            timer.setEventHandler {
                if let fresh = try? reader.registeredDevices() { registered.replace(fresh) }
            }
            timer.schedule(deadline: .now() + 2, repeating: 2)
            timer.resume()
        }

        var listeners: [UDPListener] = []
        do {
            for format in WireFormats.all {
                if let address = config.listen[format.key] {
                    listeners.append(
                        UDPListener(
                            socket: try bind(address, key: format.key),
                            format: format.make(config), door: door))
                }
            }
        } catch {
            for l in listeners { l.socket.close() }
            engine.finish()
            checkpointer.stop()
            throw error
        }
        for l in listeners { l.start() }
        if listeners.isEmpty {
            logger.warning("no listen address configured: nothing will arrive")
        }

        // Signals: handled on a dispatch queue, never in a signal handler.
        let stop = DispatchSemaphore(value: 0)
        let signalQueue = DispatchQueue(label: "fleetd.signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            s.setEventHandler { stop.signal() }
            s.resume()
            sources.append(s)
        }
        signal(SIGHUP, SIG_IGN)
        let hup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: signalQueue)
        hup.setEventHandler { [self] in
            notifier.reloading(status: "reloading fences from \(config.geofencesFile)")
            if let alertLog {
                do {
                    try alertLog.reopen()
                } catch {
                    logger.error("alert log not reopened, writing to the old file: \(error)")
                }
            }
            do {
                let fresh = try FenceFile.load(config.geofencesFile)
                engine.replaceFences(fresh)
                logger.notice("reloaded \(fresh.fences.count) fences from \(config.geofencesFile)")
            } catch {
                logger.error("fences not reloaded, keeping the old ones: \(error)")
            }
            notifier.send("READY=1")
        }
        hup.resume()
        sources.append(hup)

        let status = StatusReporter(
            metrics: metrics, engine: engine, notifier: notifier, logger: logger,
            database: config.database)
        let listening = listeners.map { "\($0.name) \($0.socket.local)" }
            .joined(separator: ", ")
        status.listening = listening
        status.start()
        notifier.ready(status: "ready; listening on \(listening.isEmpty ? "nothing" : listening)")
        logger.notice(
            "ready: \(fences.fences.count) fences; listening on \(listening.isEmpty ? "nothing" : listening)"
        )

        stop.wait()

        notifier.stopping(status: "stopping: committing held fixes")
        logger.notice("stopping: no more reads; committing what is held")
        // Each listener queues the batch in hand and stops; the engine then
        // commits everything queued and sends its replies.
        for l in listeners { l.stop() }
        engine.finish()
        checkpointer.stop()
        for l in listeners { l.socket.close() }
        status.stop()
        registryTimer?.cancel()
        let m = metrics.snapshot()
        logger.notice(
            "stopped: \(m.fixesStored) fixes stored, \(m.alerts) alerts, \(m.totalRejects) rejected this run"
        )
    }

    private func loadFences() throws -> FenceIndex {
        let path = config.geofencesFile
        if path == DaemonConfig.defaultGeofencesFile, !FileManager.default.fileExists(atPath: path)
        {
            logger.warning("default fences file \(path) not found: running with no fences")
            return FenceIndex(fences: [])
        }
        let index = try FenceFile.load(path)
        logger.info("loaded \(index.fences.count) fences from \(path)")
        return index
    }

    /// Binds one listening socket; warns when the kernel caps its receive buffer.
    private func bind(_ address: ListenAddress, key: String) throws -> UDPSocket {
        let socket: UDPSocket
        do {
            socket = try UDPSocket(binding: address, receiveBuffer: config.receiveBufferBytes)
        } catch {
            throw StartupError("cannot listen on \(address) (listen.\(key)): \(error)")
        }
        let granted = socket.receiveBufferGranted
        if granted < config.receiveBufferBytes {
            // Linux reports double the usable size; below the request means capped by net.core.rmem_max.
            logger.warning(
                "kernel granted a \(granted)-byte receive buffer on \(address), asked \(config.receiveBufferBytes) (raise net.core.rmem_max)"
            )
        }
        return socket
    }
}

/// A start-up failure with a message for the operator.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
