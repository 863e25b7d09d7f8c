import FleetConfig
import FleetMail
import FleetStorage
import Foundation
import Logging

extension Daemon {
    /// The mail service of `[smtp]`, `[[notifications]]`, the rules made
    /// through the API and `[[reports]]`, or nil without `[smtp]`. Throws
    /// `ConfigError` when the password file cannot be read.
    func makeMailDelivery(
        reader: any StoreReading, fenceNames: [String: String], groups: DeviceGroups
    ) throws -> MailDelivery? {
        let rules = config.notifications
        let reports = config.reports
        guard config.smtp.enabled else { return nil }
        let settings = try SMTPSettings(config.smtp, file: configPath ?? "(defaults)")
        logger.info(
            "mail: \(rules.count) rule\(rules.count == 1 ? "" : "s"), \(reports.count) scheduled report\(reports.count == 1 ? "" : "s") through \(settings.endpoint) (\(settings.tls.rawValue))"
        )
        return MailDelivery(
            rules: rules, reports: reports, settings: settings,
            maxInFlight: config.smtp.maxInFlight, reader: reader,
            fenceNames: fenceNames, consoleURL: config.smtp.consoleURL, logger: logger,
            groups: groups)
    }
}

extension Daemon {
    /// `fleetd --check-config` with `[smtp]`: connects, says `EHLO`, starts
    /// TLS and logs in as the config asks, and answers what the server
    /// said and offers, one line per step. Throws naming what failed.
    public static func probeSMTP(_ c: SMTPConfig, file: String) async throws -> [String] {
        let settings = try SMTPSettings(c, file: file)
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
