/// What a running fleetd is doing, as it writes it every second to its
/// status file and as `fleetctl status` (and the API next) read it. Field
/// names are the contract (add, never rename); times are Unix ms.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public var pid: Int32
    /// `running`, `storage failing`, `stopped`.
    public var state: String
    /// When this status was written.
    public var timeMs: Int64
    public var startedMs: Int64
    /// `json 127.0.0.1:5055, teltonika …`.
    public var listening: String
    /// Fixes stored per second over the last second.
    public var fixesPerS: Int
    public var datagrams: Int
    public var fixesIn: Int
    public var fixesStored: Int
    public var alerts: Int
    public var commits: Int
    public var queueFixes: Int
    /// Device states not yet checkpointed (what a crash now would replay).
    public var statesUnwritten: Int
    /// The last successful commit (0: none yet).
    public var lastCommitMs: Int64
    /// Set while commits fail.
    public var storageError: String?
    /// Rejections by `protocol/reason`.
    public var rejected: [String: Int]

    enum CodingKeys: String, CodingKey {
        case pid, state, timeMs = "time_ms", startedMs = "started_ms", listening
        case fixesPerS = "fixes_per_s", datagrams, fixesIn = "fixes_in"
        case fixesStored = "fixes_stored", alerts, commits, queueFixes = "queue_fixes"
        case statesUnwritten = "states_unwritten", lastCommitMs = "last_commit_ms"
        case storageError = "storage_error", rejected
    }

    public init(
        pid: Int32, state: String, timeMs: Int64, startedMs: Int64, listening: String,
        fixesPerS: Int, datagrams: Int, fixesIn: Int, fixesStored: Int, alerts: Int, commits: Int,
        queueFixes: Int, statesUnwritten: Int, lastCommitMs: Int64, storageError: String?,
        rejected: [String: Int]
    ) {
        self.pid = pid
        self.state = state
        self.timeMs = timeMs
        self.startedMs = startedMs
        self.listening = listening
        self.fixesPerS = fixesPerS
        self.datagrams = datagrams
        self.fixesIn = fixesIn
        self.fixesStored = fixesStored
        self.alerts = alerts
        self.commits = commits
        self.queueFixes = queueFixes
        self.statesUnwritten = statesUnwritten
        self.lastCommitMs = lastCommitMs
        self.storageError = storageError
        self.rejected = rejected
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pid, forKey: .pid)
        try c.encode(state, forKey: .state)
        try c.encode(timeMs, forKey: .timeMs)
        try c.encode(startedMs, forKey: .startedMs)
        try c.encode(listening, forKey: .listening)
        try c.encode(fixesPerS, forKey: .fixesPerS)
        try c.encode(datagrams, forKey: .datagrams)
        try c.encode(fixesIn, forKey: .fixesIn)
        try c.encode(fixesStored, forKey: .fixesStored)
        try c.encode(alerts, forKey: .alerts)
        try c.encode(commits, forKey: .commits)
        try c.encode(queueFixes, forKey: .queueFixes)
        try c.encode(statesUnwritten, forKey: .statesUnwritten)
        try c.encode(lastCommitMs, forKey: .lastCommitMs)
        try c.encode(storageError, forKey: .storageError)  // null while storage is fine
        try c.encode(rejected, forKey: .rejected)
    }

    /// The status file of the daemon writing `database`: beside it, named
    /// `<database>.status.json`. The one place this rule is written.
    public static func path(database: String) -> String { database + ".status.json" }
}
