import Foundation

/// Faults the end-to-end tests inject into a real fleetd, each off unless
/// its environment variable is set; nothing else reads them.
enum FaultInjection {
    /// `FLEETD_FAULT_HANG=listener:NAME`: that listener's thread stops
    /// turning its read loop (to show the watchdog stop).
    static let hang = ProcessInfo.processInfo.environment["FLEETD_FAULT_HANG"]
}
