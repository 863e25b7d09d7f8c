import FleetTracking

/// Read-only queries over a store, for `fleetctl`, the daemon's registry
/// check and (next) the HTTP API. Implementations read consistent
/// snapshots and never block the writer. Thread-safe.
public protocol StoreReading: Sendable {
    /// Alerts with id greater than `afterId` and less than `beforeId`
    /// (`Int64.max`: up to the newest), newest first if `newestFirst`
    /// (else oldest first), at most `limit`.
    func alerts(
        afterId: Int64, beforeId: Int64, newestFirst: Bool, limit: Int, filter: AlertFilter
    ) throws(StoreError) -> [AlertRecord]

    /// A device's stored positions in fix-time order with `fromMs <= time < toMs`
    /// (nil: unbounded), at most `limit`.
    func positions(device: String, fromMs: Int64?, toMs: Int64?, limit: Int) throws(StoreError)
        -> [PositionRecord]

    /// One alert, or nil.
    func alert(id: Int64) throws(StoreError) -> AlertRecord?

    /// One device, or nil when it was never registered nor seen.
    func device(_ ident: String) throws(StoreError) -> DeviceRecord?

    /// A user by name, with its password hash, or nil.
    func user(named name: String) throws(StoreError) -> UserRecord?

    /// Every user, by name.
    func users() throws(StoreError) -> [UserRecord]

    /// The token whose secret hashes to `secretHash` (lower-case hex SHA-256), or nil.
    func token(secretHash: String) throws(StoreError) -> TokenRecord?

    /// Every token, by name.
    func tokens() throws(StoreError) -> [TokenRecord]

    /// Audit entries with id greater than `afterId`, oldest first, at most `limit`.
    func audit(afterId: Int64, limit: Int) throws(StoreError) -> [AuditRecord]

    /// Finished trips, oldest first, at most `limit`.
    func trips(filter: TripFilter, limit: Int) throws(StoreError) -> [TripRecord]

    /// How many positions, alerts and devices are stored.
    func counts() throws(StoreError) -> (positions: Int, alerts: Int, devices: Int)

    /// Every device known, registered or seen in traffic.
    func devices() throws(StoreError) -> [DeviceRecord]

    /// The devices of `scope` whose id sorts after `after`, by id, at most
    /// `limit` (a page of the list).
    func devices(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [DeviceRecord]

    /// A device's group; nil when it is in none or does not exist. One
    /// indexed row: what a request naming a device is checked by.
    func deviceGroup(_ ident: String) throws(StoreError) -> String?

    /// Each grouped device's group (devices in no group left out): what
    /// the event stream filters a user limited to groups by.
    func deviceGroups() throws(StoreError) -> [String: String]

    /// The ids of registered devices.
    func registeredDevices() throws(StoreError) -> Set<String>

    /// A device's shared links, newest first (revoked and expired ones too).
    func shares(device: String) throws(StoreError) -> [ShareRecord]

    /// The link whose token hashes to `tokenHash`, or nil.
    func share(tokenHash: String) throws(StoreError) -> ShareRecord?

    /// The ids of every device known, registered or seen in traffic (one
    /// column: cheap enough to read again every few seconds).
    func deviceIdents() throws(StoreError) -> Set<String>

    /// Commands, newest first: of `device` (nil: every device), in
    /// `statuses` (empty: any), at most `limit`.
    func commands(device: String?, statuses: [CommandStatus], limit: Int) throws(StoreError)
        -> [CommandRecord]

    /// Registered names by device id (devices registered with a name).
    func deviceNames() throws(StoreError) -> [String: String]

    /// Alerts stored per type.
    func alertCountsByType() throws(StoreError) -> [(type: String, count: Int)]

    /// The highest alert id (0 when none).
    func lastAlertId() throws(StoreError) -> Int64

    /// Per device (only `device` when given), its accepted positions with
    /// `fromMs <= time < toMs`: first, last, count, top speed. Devices
    /// without one are left out. By device id.
    func positionSpans(device: String?, fromMs: Int64, toMs: Int64) throws(StoreError)
        -> [PositionSpan]

    /// The fences each device (only `device` when given) was inside, by its
    /// newest `geofence_enter`/`geofence_exit` alert per fence dated before
    /// `beforeMs` (nil: of all): device id → fence names, sorted. Devices
    /// inside none are left out.
    func fencesInside(device: String?, beforeMs: Int64?) throws(StoreError) -> [String: [String]]

    /// The devices of `scope` whose id sorts after `after` and that have an
    /// accepted position, with their newest one, by id, at most `limit` (a
    /// page of the live map).
    func vehicles(after: String, limit: Int, scope: DeviceScope) throws(StoreError)
        -> [VehicleRecord]

    /// The alerts of `batch` (owed to its subscription, ids
    /// `firstAlert…lastAlert`), in id order, as `alerts` gives them.
    func webhookAlerts(_ batch: WebhookBatch) throws(StoreError) -> [AlertRecord]

    /// Every subscription with how its deliveries stand at `nowMs`, by name.
    func webhookStatuses() throws(StoreError) -> [WebhookStatus]

    /// Services done, newest first: `device`'s or every device's; with
    /// `latestOnly`, each plan's latest for each device (one a person
    /// recorded before the plan's own start record, whatever their dates).
    func maintenance(device: String?, latestOnly: Bool) throws(StoreError) -> [MaintenanceRecord]

    /// The mail outbox, newest first: up to `limit` mails of `statuses`
    /// (every status when empty).
    func mails(statuses: [MailRecord.Status], limit: Int) throws(StoreError) -> [MailRecord]

    /// The notification rules stored through the API, by name (`origin`
    /// `.api`; the config's are not stored).
    func mailRules() throws(StoreError) -> [MailRule]

    /// Each device's tracking state as last checkpointed (only `device`'s
    /// when given), by device id: what `fleetctl trips --open` reads the
    /// trips under way from.
    func deviceStates(device: String?) throws(StoreError) -> [String: DeviceState]
}

extension StoreReading {
    /// Alerts with id greater than `afterId`, oldest first, at most `limit`.
    public func alerts(afterId: Int64, limit: Int, filter: AlertFilter) throws(StoreError)
        -> [AlertRecord]
    {
        try alerts(
            afterId: afterId, beforeId: .max, newestFirst: false, limit: limit, filter: filter)
    }

    /// Every trip `filter` selects, by start time, handed to `body` a page
    /// of `pageSize` at a time (`trips(filter:limit:)` from each page's
    /// last trip on), so that a caller keeps only what it needs of them.
    /// Stops early when `body` returns false.
    public func forEachTripPage(
        _ filter: TripFilter, pageSize: Int = 10_000,
        _ body: ([TripRecord]) throws(StoreError) -> Bool
    ) throws(StoreError) {
        var page = filter
        while true {
            let got = try trips(filter: page, limit: pageSize)
            guard try body(got), got.count == pageSize, let last = got.last else { return }
            (page.afterStartMs, page.afterId) = (last.startTime, last.id)
        }
    }

    /// Every device's page (`devices(after:limit:scope:)` of `.all`).
    public func devices(after: String, limit: Int) throws(StoreError) -> [DeviceRecord] {
        try devices(after: after, limit: limit, scope: .all)
    }

    /// Every vehicle's page (`vehicles(after:limit:scope:)` of `.all`).
    public func vehicles(after: String, limit: Int) throws(StoreError) -> [VehicleRecord] {
        try vehicles(after: after, limit: limit, scope: .all)
    }

    /// A device's stored positions in fix-time order, at most `limit`.
    public func positions(device: String, limit: Int) throws(StoreError) -> [PositionRecord] {
        try positions(device: device, fromMs: nil, toMs: nil, limit: limit)
    }
}
