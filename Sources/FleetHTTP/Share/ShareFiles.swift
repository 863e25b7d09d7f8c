import FleetConfig
import FleetJSON
import Foundation

/// The shared vehicle's page as compiled into fleetd (`resources` in
/// Package.swift): the page, its script and its style.
enum ShareFiles {
    static var script: [UInt8] { PackageResources.share_js }
    static var style: [UInt8] { PackageResources.share_css }

    /// The page with the map's settings in place of `{{CONFIG}}` (as the
    /// console's: `tile_url`, `tile_attribution`, in a JSON script element).
    static func page(settings: HTTPSettings) -> [UInt8] {
        let config =
            "{\"tile_url\":\(JSONValue.quote(settings.tileURL)),\"tile_attribution\":\(JSONValue.quote(settings.tileAttribution))}"
        let safe = config.replacingOccurrences(of: "<", with: "\\u003c")
        let text = String(decoding: PackageResources.share_html, as: UTF8.self)
        return Array(text.replacingOccurrences(of: "{{CONFIG}}", with: safe).utf8)
    }
}
