import FleetModel

extension Tracker {
    /// What processing one fix produced.
    public struct Outcome: Sendable, Equatable {
        public var disposition: FixDisposition
        public var alerts: [Alert]
        /// The device's state after the fix (unchanged for duplicates and late
        /// fixes); nil from the in-place `process(_:state:containing:)`.
        /// Kept out of line: the in-place path, the daemon's, moves outcomes
        /// by the thousand with no state, and a `DeviceState` is 328 bytes.
        public var state: DeviceState? {
            get { stateBox?.value }
            set { stateBox = newValue.map(Frozen.init) }
        }
        private var stateBox: Frozen<DeviceState>?
        /// Trips the fix ended.
        public var trips: [Trip] = []
        /// Times (ms) of earlier fixes held as jump suspects that this fix
        /// confirmed: their stored disposition becomes `accepted`.
        public var confirmed: [Int64] = []

        /// The state to keep and store: nil when the fix changed nothing
        /// (a duplicate or a late fix), or when the state was updated in place.
        public var newState: DeviceState? { changesState ? state : nil }

        /// False for a duplicate or a late fix: the device's state is as it was.
        public var changesState: Bool { disposition != .duplicate && disposition != .late }

        public init(
            disposition: FixDisposition, alerts: [Alert], state: DeviceState?, trips: [Trip] = [],
            confirmed: [Int64] = []
        ) {
            self.disposition = disposition
            self.alerts = alerts
            self.stateBox = state.map(Frozen.init)
            self.trips = trips
            self.confirmed = confirmed
        }

        public static func == (a: Outcome, b: Outcome) -> Bool {
            a.disposition == b.disposition && a.alerts == b.alerts && a.state == b.state
                && a.trips == b.trips && a.confirmed == b.confirmed
        }
    }
}
