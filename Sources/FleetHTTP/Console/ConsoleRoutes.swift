import FleetConfig
import FleetJSON
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The console: `GET /` (the page), `/console/console.js`,
/// `/console/console.css`, its icon (`/console/favicon.svg`, also at
/// `/favicon.ico`) and the background map without tiles
/// (`/console/basemap.geojson`) (compiled into fleetd), and Leaflet's files from
/// `http.leaflet_dir` (Debian's `libjs-leaflet`) under `/leaflet/`. None
/// holds data, so none needs a login: the page logs in through the API and
/// every piece of data it shows comes from routes that do. Not part of the
/// API's OpenAPI document.
enum ConsoleRoutes {
    /// Leaflet's files served, by path under `/leaflet/`.
    static let leafletFiles: [String: String] = [
        "leaflet.js": "text/javascript; charset=utf-8",
        "leaflet.css": "text/css; charset=utf-8",
        "images/layers.png": "image/png", "images/layers-2x.png": "image/png",
        "images/marker-icon.png": "image/png", "images/marker-icon-2x.png": "image/png",
        "images/marker-shadow.png": "image/png",
    ]

    static func make(_ d: RouteDeps) -> [Route] {
        guard d.settings.console else { return [] }
        if !FileManager.default.fileExists(atPath: d.settings.leafletDir + "/leaflet.js") {
            d.logger.warning(
                "console: \(d.settings.leafletDir)/leaflet.js is missing: the console cannot draw its map; install Debian's libjs-leaflet package (or set http.leaflet_dir)"
            )
        }
        let page = ConsoleFiles.page(settings: d.settings)
        let csp = contentSecurityPolicy(d.settings)
        return [
            // `positions=on`: the page takes positions one event each (see console.js).
            Route(.get, "/", role: nil, parameters: ["positions"]) { _ in
                file(page, "text/html; charset=utf-8", csp: csp)
            },
            Route(.get, "/console/console.js", role: nil) { _ in
                file(ConsoleFiles.script, "text/javascript; charset=utf-8", csp: csp)
            },
            Route(.get, "/console/people.js", role: nil) { _ in
                file(ConsoleFiles.peopleScript, "text/javascript; charset=utf-8", csp: csp)
            },
            Route(.get, "/console/console.css", role: nil) { _ in
                file(ConsoleFiles.style, "text/css; charset=utf-8", csp: csp)
            },
            Route(.get, "/console/favicon.svg", role: nil) { _ in
                file(ConsoleFiles.icon, "image/svg+xml", csp: csp)
            },
            Route(.get, "/console/basemap.js", role: nil) { _ in
                file(ConsoleFiles.basemapScript, "text/javascript; charset=utf-8", csp: csp)
            },
            Route(.get, "/console/basemap.geojson", role: nil) { _ in
                file(ConsoleFiles.basemap, "application/geo+json", csp: csp)
            },
            // Asked for by browsers whatever the page says.
            Route(.get, "/favicon.ico", role: nil) { _ in
                file(ConsoleFiles.icon, "image/svg+xml", csp: csp)
            },
            Route(.get, "/leaflet/{file}", role: nil) { r in
                try await leaflet(r.path["file"]!, d, csp: csp)
            },
            Route(.get, "/leaflet/images/{file}", role: nil) { r in
                try await leaflet("images/" + r.path["file"]!, d, csp: csp)
            },
        ]
    }

    /// Only the page's own origin; images also from the tile server when
    /// one is configured (https://www.w3.org/TR/CSP3/).
    static func contentSecurityPolicy(_ s: HTTPSettings) -> String {
        var img = "'self' data:"
        if let url = URL(string: s.tileURL.replacingOccurrences(of: "{s}", with: "a")),
            let scheme = url.scheme, let host = url.host
        {
            let tileHost =
                s.tileURL.contains("{s}")
                ? "*." + host.split(separator: ".", maxSplits: 1).last.map(String.init)! : host
            img += " \(scheme)://\(tileHost)\(url.port.map { ":\($0)" } ?? "")"
        }
        return
            "default-src 'self'; img-src \(img); style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    }

    static func file(_ bytes: [UInt8], _ type: String, csp: String) -> Response {
        var h = HTTPFields()
        h[.contentType] = type
        h[.cacheControl] = "no-cache"
        h[.contentSecurityPolicy] = csp
        h[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        h[HTTPField.Name("X-Frame-Options")!] = "DENY"
        h[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .ok, headers: h, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func leaflet(_ name: String, _ d: RouteDeps, csp: String) async throws -> Response {
        guard let type = leafletFiles[name] else {
            throw APIError.notFound("no such file: /leaflet/\(name.prefix(100))")
        }
        let path = d.settings.leafletDir + "/" + name
        let bytes = await Blocking.run { () -> [UInt8]? in
            FileManager.default.contents(atPath: path).map { Array($0) }
        }
        guard let bytes else {
            d.logger.error(
                "console: \(path) is missing: install Debian's libjs-leaflet (or set http.leaflet_dir)"
            )
            throw APIError(
                .serviceUnavailable, "Leaflet is not installed",
                "\(path) is missing: install Debian's libjs-leaflet package, or set http.leaflet_dir"
            )
        }
        var r = file(bytes, type, csp: csp)
        r.headers[.cacheControl] = "max-age=86400"
        return r
    }
}
