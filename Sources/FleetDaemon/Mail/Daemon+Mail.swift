import FleetConfig
import FleetMail
import FleetStorage
import Foundation
import Logging

extension Daemon {
    /// The mail service of `[smtp]` and `[[notifications]]`, or nil when
    /// there are no rules. Throws `ConfigError` when the password file
    /// cannot be read.
    func makeMailDelivery(reader: any StoreReading, fenceNames: [String: String]) throws
        -> MailDelivery?
    {
        guard config.smtp.enabled, !config.notifications.isEmpty else { return nil }
        let settings = try Self.smtpSettings(config.smtp, file: configPath ?? "(defaults)")
        logger.info(
            "mail: \(config.notifications.count) rule\(config.notifications.count == 1 ? "" : "s") through \(settings.endpoint) (\(settings.tls.rawValue))"
        )
        return MailDelivery(
            rules: config.notifications, settings: settings, maxInFlight: config.smtp.maxInFlight,
            reader: reader,
            fenceNames: fenceNames, consoleURL: config.smtp.consoleURL, logger: logger)
    }

    /// `[smtp]` as the client takes it, with the password read from its file.
    public static func smtpSettings(_ c: SMTPConfig, file: String) throws(ConfigError)
        -> SMTPSettings
    {
        SMTPSettings(
            host: c.host, port: c.port, from: c.from, username: c.username,
            password: try c.password(file: file),
            tls: SMTPSettings.TLS(rawValue: c.tls) ?? .starttls,
            timeoutS: c.timeoutS, caFile: c.caFile,
            heloName: c.heloName.isEmpty ? ProcessInfo.processInfo.hostName : c.heloName)
    }
}

extension Daemon {
    /// `fleetd --check-config` with `[smtp]`: connects, says `EHLO`, starts
    /// TLS and logs in as the config asks, and answers what the server
    /// said and offers, one line per step. Throws naming what failed.
    public static func probeSMTP(_ c: SMTPConfig, file: String) async throws -> [String] {
        let settings = try smtpSettings(c, file: file)
        do {
            return try await SMTPClient.probe(settings)
        } catch {
            throw SMTPProbeFailed(message: "smtp \(settings.endpoint): \(error.message)")
        }
    }
}

/// Why `--check-config` could not reach the mail server.
public struct SMTPProbeFailed: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
