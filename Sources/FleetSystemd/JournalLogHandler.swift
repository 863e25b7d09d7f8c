import Logging

/// A swift-log handler that writes to the systemd journal: `MESSAGE` (with
/// the metadata as `key=value` after it, as the stream handler writes them),
/// `PRIORITY` (syslog's, from the level), `SYSLOG_IDENTIFIER`,
/// `FLEETD_LOGGER` (the logger's label: the module), and the source's
/// `CODE_FILE`, `CODE_LINE`, `CODE_FUNC` (systemd.journal-fields(7)).
/// fleetd uses it when its standard error is the journal
/// (`Journal.connected()`).
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let identifier: String

    public init(label: String, identifier: String = "fleetd") {
        self.label = label
        self.identifier = identifier
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        var message = event.message.description
        if !all.isEmpty {
            message +=
                " "
                + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                    separator: " ")
        }
        Journal.send([
            ("MESSAGE", message), ("PRIORITY", String(Self.priority(event.level).rawValue)),
            ("SYSLOG_IDENTIFIER", identifier), ("FLEETD_LOGGER", label),
            ("CODE_FILE", event.file), ("CODE_LINE", String(event.line)),
            ("CODE_FUNC", event.function),
        ])
    }

    /// swift-log's levels as syslog priorities.
    public static func priority(_ level: Logger.Level) -> Journal.Priority {
        switch level {
        case .trace, .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
