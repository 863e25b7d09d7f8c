import FleetConfig
import Foundation

extension SMTPSettings {
    /// `[smtp]` as the client takes it, the password read from its file
    /// (`file` names the config for errors). Throws `ConfigError`.
    public init(_ c: SMTPConfig, file: String) throws(ConfigError) {
        self.init(
            host: c.host, port: c.port, from: c.from, username: c.username,
            password: try c.password(file: file), tls: TLS(rawValue: c.tls) ?? .starttls,
            timeoutS: c.timeoutS, caFile: c.caFile,
            heloName: c.heloName.isEmpty ? ProcessInfo.processInfo.hostName : c.heloName)
    }
}
