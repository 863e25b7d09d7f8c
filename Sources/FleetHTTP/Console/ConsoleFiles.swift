import FleetConfig
import FleetJSON
import Foundation

/// The console's files as compiled into fleetd (`resources` in
/// Package.swift).
enum ConsoleFiles {
    static var script: [UInt8] { PackageResources.console_js }
    /// The Mail and People views (`people.js`, over `/api/v1/notifications` and `/api/v1/users`).
    static var peopleScript: [UInt8] { PackageResources.people_js }
    static var style: [UInt8] { PackageResources.console_css }
    static var icon: [UInt8] { PackageResources.favicon_svg }
    /// Natural Earth's 1:110m countries (public domain,
    /// https://www.naturalearthdata.com/about/terms-of-use/): the maps'
    /// background when no tile server is configured.
    static var basemap: [UInt8] { PackageResources.natural_earth_110m_countries_geojson }
    /// The script that draws it (`addBasemap(map)`).
    static var basemapScript: [UInt8] { PackageResources.basemap_js }

    /// The page with its settings in place of `{{CONFIG}}`: a JSON object
    /// (`tile_url`, `tile_attribution`) in a `<script type="application/json">`,
    /// which the page reads and never runs.
    static func page(settings: HTTPSettings) -> [UInt8] {
        withConfig(PackageResources.index_html, settings: settings)
    }

    /// `html` with the map's settings in place of `{{CONFIG}}`: a JSON
    /// object (`tile_url`, `tile_attribution`) with `<` escaped, so that no
    /// value can close the script element it sits in.
    static func withConfig(_ html: [UInt8], settings: HTTPSettings) -> [UInt8] {
        let config =
            "{\"tile_url\":\(JSONValue.quote(settings.tileURL)),\"tile_attribution\":\(JSONValue.quote(settings.tileAttribution))}"
        let safe = config.replacingOccurrences(of: "<", with: "\\u003c")
        let text = String(decoding: html, as: UTF8.self)
        return Array(text.replacingOccurrences(of: "{{CONFIG}}", with: safe).utf8)
    }
}
