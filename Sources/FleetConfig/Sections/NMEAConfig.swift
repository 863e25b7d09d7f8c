import FleetProtocols

/// `[nmea.devices]`: NMEA senders' device ids by "ip" or "ip:port" (NMEA
/// carries no identity of its own unless a `$PFLID` sentence names it).
public struct NMEAConfig: Sendable, Equatable {
    public var devices: [String: String] = [:]

    public init() {}

    init(_ s: inout ConfigSection) throws(ConfigError) {
        switch s.value("devices") {
        case nil: break
        case .table(let t)?:
            for key in t.keys {
                let line = t.line(of: key)
                let name = "nmea.devices.\(key)"
                guard case .string(let id)? = t[key] else {
                    throw ConfigError(
                        file: s.file, line: line, key: name, message: "must be a device id string")
                }
                guard JSONFixDecoder.isValidDevice(id) else {
                    throw ConfigError(
                        file: s.file, line: line, key: name,
                        message: "\"\(id)\" is not a device id (1–64 characters of [A-Za-z0-9._:-])"
                    )
                }
                guard key.contains(".") || key.contains(":") else {
                    throw ConfigError(
                        file: s.file, line: line, key: name,
                        message: "the key must be an IP address or IP:port")
                }
                devices[key] = id
            }
        case let other?:
            throw s.error(
                "devices", "must be a table of \"address\" = \"device id\", found \(other.typeName)"
            )
        }
    }
}
