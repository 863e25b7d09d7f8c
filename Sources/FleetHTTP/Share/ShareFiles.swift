import FleetConfig
import Foundation

/// The shared vehicle's page as compiled into fleetd (`resources` in
/// Package.swift): the page, its script and its style.
enum ShareFiles {
    static var script: [UInt8] { PackageResources.share_js }
    static var style: [UInt8] { PackageResources.share_css }

    /// The page with the map's settings in place of `{{CONFIG}}` (as the
    /// console's).
    static func page(settings: HTTPSettings) -> [UInt8] {
        ConsoleFiles.withConfig(PackageResources.share_html, settings: settings)
    }
}
