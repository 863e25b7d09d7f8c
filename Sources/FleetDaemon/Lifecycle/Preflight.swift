import FleetConfig
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What `fleetd --check-config` checks: everything start-up checks before
/// it opens anything, so that "config OK" means start-up would succeed
/// (short of a port taken in between). Each check throws an error naming
/// the file, key or address.
public enum Preflight {
    /// Runs every check; returns a one-line summary.
    public static func run(_ config: DaemonConfig) throws -> String {
        let fences = try FenceFile.loadConfigured(config.geofences).note
        let hooks = try WebhookSync.resolve(config.webhooks)
        _ = try DevicePolicy.load(path: config.devices.policyFile)
        if config.storage.backend == .sqlite { try databaseFolder(config.storage.database) }
        for (key, address) in config.listen.addresses.sorted(by: { $0.key < $1.key }) {
            _ = close(try Daemon.bindUDP(address, key: key, receiveBuffer: 65_536).fd)
        }
        if let a = config.http.listen { try TCPPortCheck.ensureFree(a, key: "http.listen") }
        if let a = config.listen.osmand { try TCPPortCheck.ensureFree(a, key: "listen.osmand") }
        return
            "database \(config.storage.backend == .sqlite ? config.storage.database : PostgresConfig.redacted(config.postgresql.url)), \(fences), \(hooks.count) webhooks, listening on \(config.listen.addresses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
    }

    /// The database's folder exists and fleetd may write there, or can be
    /// made: tried for real (a file made and removed there, or the first
    /// missing folder made and removed), since permission bits do not bind
    /// root and a read-only mount shows only when written. Throws
    /// `StartupError` naming the folder and the system's reason.
    static func databaseFolder(_ database: String) throws {
        var dir = (database as NSString).deletingLastPathComponent
        if dir.isEmpty { dir = "." }
        var missing = dir
        while !FileManager.default.fileExists(atPath: missing) {
            let parent = (missing as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != missing,
                !FileManager.default.fileExists(atPath: parent)
            else { break }
            missing = parent
        }
        if FileManager.default.fileExists(atPath: missing) {
            let probe = dir + "/.fleetd-check-\(getpid())"
            let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard fd >= 0 else {
                throw StartupError(
                    "cannot write in the database folder \(dir): \(String(cString: strerror(errno)))"
                )
            }
            close(fd)
            unlink(probe)
        } else {
            guard mkdir(missing, 0o755) == 0 else {
                throw StartupError(
                    "cannot create the database folder \(dir)\(missing == dir ? "" : " (\(missing))"): \(String(cString: strerror(errno)))"
                )
            }
            rmdir(missing)
        }
    }
}
