import FleetStorage

/// What a usage report is made of, as read from a store: pure values, so
/// that `UsageReportBuilder` is tested without one.
public struct UsageInputs: Sendable, Equatable {
    /// Devices to report on even when idle (registered ones, or the one
    /// asked for); others are listed when active in the period.
    public var always: Set<String>
    /// Registered names, by device id.
    public var names: [String: String]
    public var trips: [TripRecord]
    /// The alerts the report counts, dated in the period.
    public var events: [UsageEvent]
    public var spans: [PositionSpan]
    /// Fences each device was inside when the period began.
    public var insideAtStart: [String: [String]]

    public init(
        always: Set<String>, names: [String: String], trips: [TripRecord], events: [UsageEvent],
        spans: [PositionSpan], insideAtStart: [String: [String]]
    ) {
        self.always = always
        self.names = names
        self.trips = trips
        self.events = events
        self.spans = spans
        self.insideAtStart = insideAtStart
    }

    /// The usage report for `[fromMs, toMs)` made at `nowMs`, one device or
    /// all, read through any backend's `StoreReading`: the trips, position
    /// spans and fences at the start at once, the alerts device by device
    /// a thousand devices at a time (`events`), so that a long period's
    /// alerts are never all in memory.
    /// Throws `StoreError`.
    public static func report(
        _ reader: any StoreReading, fromMs: Int64, toMs: Int64, device: String?, nowMs: Int64
    ) throws(StoreError) -> UsageReport {
        let inputs = try read(reader, fromMs: fromMs, toMs: toMs, device: device)
        return try UsageReportBuilder.make(
            inputs, fromMs: fromMs, toMs: toMs, nowMs: nowMs,
            eventsOf: { range throws(StoreError) in
                try events(reader, devices: range, fromMs: fromMs, toMs: toMs)
            })
    }

    /// Reads the inputs for `[fromMs, toMs)`, one device or all, through
    /// any backend's `StoreReading`, without the alerts (`events` is left
    /// empty: `events(_:devices:fromMs:toMs:)` reads them a slice of
    /// devices at a time). Throws `StoreError`.
    public static func read(
        _ reader: any StoreReading, fromMs: Int64, toMs: Int64, device: String?
    ) throws(StoreError) -> UsageInputs {
        var always: Set<String> = []
        var names: [String: String] = [:]
        if let device {
            always = [device]
            names[device] = try reader.device(device)?.name
        } else {
            always = try reader.registeredDevices()
            names = try reader.deviceNames()
        }
        var trips: [TripRecord] = []
        try reader.forEachTripPage(TripFilter(device: device, fromMs: fromMs, toMs: toMs)) {
            trips += $0.filter { $0.startTime >= fromMs }
            return true
        }
        return UsageInputs(
            always: always, names: names, trips: trips, events: [],
            spans: try reader.positionSpans(device: device, fromMs: fromMs, toMs: toMs),
            insideAtStart: try reader.fencesInside(device: device, beforeMs: fromMs))
    }

    /// The alerts dated in `[fromMs, toMs)` that the report counts, of the
    /// devices whose ids sort in `devices`, page by page, each kept as the
    /// little the report needs.
    public static func events(
        _ reader: any StoreReading, devices: ClosedRange<String>, fromMs: Int64, toMs: Int64
    ) throws(StoreError) -> [UsageEvent] {
        try events(reader, AlertFilter(sinceMs: fromMs, untilMs: toMs, devices: devices))
    }

    /// The alerts `filter` selects that a report counts, page by page, each
    /// kept as the little a report needs (`UsageEvent`).
    static func events(_ reader: any StoreReading, _ filter: AlertFilter) throws(StoreError)
        -> [UsageEvent]
    {
        var events: [UsageEvent] = []
        var after: Int64 = 0
        while true {
            let got = try reader.alerts(afterId: after, limit: 10_000, filter: filter)
            events += got.lazy.compactMap(UsageEvent.init)
            guard got.count == 10_000, let last = got.last else { break }
            after = last.id
        }
        return events
    }
}
