import FleetGeo
import FleetJSON
import Foundation

/// A picture of where a vehicle went: its track over the fences, trip
/// starts and ends, alerts as labelled points, a scale bar and a north
/// arrow, as SVG (`svg()`) or a self-contained HTML page (`html()`). Pure:
/// values in, text out (`fleetctl map`).
///
/// Projection: equirectangular around the centre of what is shown
/// (`LocalProjection`), x east and y north in metres scaled alike, so that
/// shapes and distances look right at the fleet's latitude (error under
/// 0.1 % over ~50 km). North is up.
public struct TrackMap: Sendable {
    /// A labelled point on the map.
    public struct Marker: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case tripStart = "trip-start", tripEnd = "trip-end", alert
        }
        public var lat: Double
        public var lon: Double
        public var kind: Kind
        public var label: String

        public init(lat: Double, lon: Double, kind: Kind, label: String) {
            self.lat = lat
            self.lon = lon
            self.kind = kind
            self.label = label
        }
    }

    public var title: String
    /// The track, in time order; a run of positions is cut where `breaks`
    /// says (indices where a new line starts, e.g. after a gap).
    public var track: [Coordinate]
    public var breaks: Set<Int> = []
    public var fences: [Fence]
    public var markers: [Marker]
    /// Picture width in pixels; the height follows the shape shown.
    public var width: Double = 1000

    public init(title: String, track: [Coordinate], fences: [Fence], markers: [Marker]) {
        self.title = title
        self.track = track
        self.fences = fences
        self.markers = markers
    }

    /// The frame: what is shown (track and markers, 8 % margin; at least
    /// 500 m across), its projection and the scale in pixels per metre.
    struct Frame {
        let projection: LocalProjection
        let scale: Double
        let minX: Double
        let maxY: Double
        let width: Double
        let height: Double
        /// What is shown, in degrees (for choosing the fences to draw).
        let bounds: BoundingBox

        func point(_ lat: Double, _ lon: Double) -> (x: Double, y: Double) {
            let p = projection.project(lat: lat, lon: lon)
            return ((p.x - minX) * scale, (maxY - p.y) * scale)
        }
    }

    func frame() -> Frame {
        var coords = track + markers.map { Coordinate(lat: $0.lat, lon: $0.lon) }
        if coords.isEmpty {
            coords = fences.flatMap {
                [
                    Coordinate(lat: $0.bounds.minY, lon: $0.bounds.minX),
                    Coordinate(lat: $0.bounds.maxY, lon: $0.bounds.maxX),
                ]
            }
        }
        if coords.isEmpty { coords = [Coordinate(lat: 0, lon: 0)] }
        let box = BoundingBox(coords)
        let projection = LocalProjection(
            lat0: (box.minY + box.maxY) / 2, lon0: (box.minX + box.maxX) / 2)
        var minX = Double.infinity, maxX = -Double.infinity
        var minY = Double.infinity, maxY = -Double.infinity
        for c in coords {
            let p = projection.project(lat: c.lat, lon: c.lon)
            (minX, maxX) = (min(minX, p.x), max(maxX, p.x))
            (minY, maxY) = (min(minY, p.y), max(maxY, p.y))
        }
        // At least 500 m across, then 8 % around.
        let spanX = max(maxX - minX, 500), spanY = max(maxY - minY, 500 * 0.6)
        let cx = (minX + maxX) / 2, cy = (minY + maxY) / 2
        let halfX = spanX * 0.58, halfY = spanY * 0.58
        let scale = width / (2 * halfX)
        let height = (2 * halfY * scale).rounded()
        let mPerDegLat = Haversine.earthRadius * Double.pi / 180
        let mPerDegLon = mPerDegLat * max(cos(projection.lat0 * Double.pi / 180), 1e-9)
        let bounds = BoundingBox(
            minX: projection.lon0 + (cx - halfX) / mPerDegLon,
            minY: projection.lat0 + (cy - halfY) / mPerDegLat,
            maxX: projection.lon0 + (cx + halfX) / mPerDegLon,
            maxY: projection.lat0 + (cy + halfY) / mPerDegLat)
        return Frame(
            projection: projection, scale: scale, minX: cx - halfX, maxY: cy + halfY,
            width: width, height: max(height, 200), bounds: bounds)
    }

    /// The map as an SVG document (SVG 1.1): groups `fences`, `track`,
    /// `markers`, `scale` and `north`, each element with a class naming
    /// what it is, every coordinate inside the `viewBox`'s frame except
    /// parts of fences reaching beyond it (clipped).
    public func svg() -> String {
        let f = frame()
        let w = Self.n(f.width), h = Self.n(f.height)
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 \(w) \(h)" width="\(w)" height="\(h)" font-family="sans-serif" font-size="12">
            <title>\(XML.escape(title))</title>
            <defs><clipPath id="frame"><rect x="0" y="0" width="\(w)" height="\(h)"/></clipPath></defs>
            <rect class="background" x="0" y="0" width="\(w)" height="\(h)" fill="#f4f3ef"/>

            """
        s += fencesGroup(f)
        s += trackGroup(f)
        s += markersGroup(f)
        s += scaleGroup(f)
        s += northGroup(f)
        s +=
            "<text class=\"caption\" x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">\(XML.escape(title))</text>\n"
        return s + "</svg>\n"
    }

    private func fencesGroup(_ f: Frame) -> String {
        var s = "<g id=\"fences\" clip-path=\"url(#frame)\">\n"
        for fence in fences where Self.overlaps(fence.bounds, f.bounds) {
            let name = XML.escape(fence.name)
            var label: (Double, Double)
            switch fence.shape {
            case .polygons(let polygons):
                var d = ""
                for p in polygons {
                    for ring in [p.shell] + p.holes {
                        for i in ring.xs.indices {
                            let (x, y) = f.point(ring.ys[i], ring.xs[i])
                            d += (i == 0 ? "M" : "L") + "\(Self.n(x)) \(Self.n(y)) "
                        }
                        d += "Z "
                    }
                }
                s +=
                    "<path class=\"fence\" data-name=\"\(name)\" d=\"\(d.dropLast())\" fill=\"#3b7dd8\" fill-opacity=\"0.15\" fill-rule=\"evenodd\" stroke=\"#3b7dd8\" stroke-width=\"1.5\"/>\n"
                let b = fence.bounds
                label = f.point(b.maxY, (b.minX + b.maxX) / 2)
            case .circle(let c, let r):
                let (x, y) = f.point(c.lat, c.lon)
                s +=
                    "<circle class=\"fence\" data-name=\"\(name)\" cx=\"\(Self.n(x))\" cy=\"\(Self.n(y))\" r=\"\(Self.n(r * f.scale))\" fill=\"#3b7dd8\" fill-opacity=\"0.15\" stroke=\"#3b7dd8\" stroke-width=\"1.5\"/>\n"
                label = (x, y - r * f.scale)
            case .corridor(let line, let half):
                let pts = line.map { f.point($0.lat, $0.lon) }.map {
                    "\(Self.n($0.x)),\(Self.n($0.y))"
                }
                s +=
                    "<polyline class=\"fence\" data-name=\"\(name)\" points=\"\(pts.joined(separator: " "))\" fill=\"none\" stroke=\"#3b7dd8\" stroke-opacity=\"0.2\" stroke-width=\"\(Self.n(max(2 * half * f.scale, 1)))\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>\n"
                label = line.first.map { f.point($0.lat, $0.lon) } ?? (0, 0)
            }
            s +=
                "<text class=\"fence-label\" x=\"\(Self.n(label.0))\" y=\"\(Self.n(label.1 - 4))\" text-anchor=\"middle\" fill=\"#1f4f8f\">\(name)</text>\n"
        }
        return s + "</g>\n"
    }

    private func trackGroup(_ f: Frame) -> String {
        var s = "<g id=\"track\">\n"
        var run: [String] = []
        func flush() {
            if run.count > 1 {
                s +=
                    "<polyline class=\"track\" points=\"\(run.joined(separator: " "))\" fill=\"none\" stroke=\"#d0352b\" stroke-width=\"2.5\" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>\n"
            }
            run = []
        }
        for (i, c) in track.enumerated() {
            if breaks.contains(i) { flush() }
            let (x, y) = f.point(c.lat, c.lon)
            run.append("\(Self.n(x)),\(Self.n(y))")
        }
        flush()
        return s + "</g>\n"
    }

    private func markersGroup(_ f: Frame) -> String {
        var s = "<g id=\"markers\">\n"
        // Labels placed greedily: one that would overlap a placed one moves down a line.
        var placed: [(x: Double, y: Double, w: Double)] = []
        for m in markers {
            let (x, y) = f.point(m.lat, m.lon)
            let colour =
                switch m.kind {
                case .tripStart: "#2e9e44"
                case .tripEnd: "#222222"
                case .alert: "#f0a020"
                }
            s +=
                "<circle class=\"\(m.kind.rawValue)\" cx=\"\(Self.n(x))\" cy=\"\(Self.n(y))\" r=\"\(m.kind == .alert ? 4 : 6)\" fill=\"\(colour)\" stroke=\"#ffffff\" stroke-width=\"1.5\"><title>\(XML.escape(m.label))</title></circle>\n"
            let width = Double(m.label.count) * 6.6
            var ly = y + 4
            while placed.contains(where: {
                abs($0.y - ly) < 13 && x + 8 < $0.x + $0.w && $0.x < x + 8 + width
            }) {
                ly += 13
            }
            placed.append((x + 8, ly, width))
            s +=
                "<text class=\"\(m.kind.rawValue)-label\" x=\"\(Self.n(x + 8))\" y=\"\(Self.n(ly))\" fill=\"#333333\" stroke=\"#f4f3ef\" stroke-width=\"3\" paint-order=\"stroke\">\(XML.escape(m.label))</text>\n"
        }
        return s + "</g>\n"
    }

    /// A bar of a round length (1, 2 or 5 × 10ⁿ m) near a fifth of the width.
    private func scaleGroup(_ f: Frame) -> String {
        let metres = Self.roundLength(f.width / 5 / f.scale)
        let px = metres * f.scale
        let x0 = 20.0, y0 = f.height - 20
        let label = metres >= 1000 ? "\(Self.n(metres / 1000)) km" : "\(Self.n(metres)) m"
        return """
            <g id="scale" data-metres="\(Self.n(metres))">
            <rect class="scale-bar" x="\(Self.n(x0))" y="\(Self.n(y0 - 6))" width="\(Self.n(px))" height="6" fill="#333333"/>
            <text class="scale-label" x="\(Self.n(x0))" y="\(Self.n(y0 - 10))">\(label)</text>
            </g>

            """
    }

    private func northGroup(_ f: Frame) -> String {
        let x = f.width - 30, y = 20.0
        return """
            <g id="north">
            <path class="north-arrow" d="M\(Self.n(x)) \(Self.n(y)) L\(Self.n(x + 9)) \(Self.n(y + 28)) L\(Self.n(x)) \(Self.n(y + 22)) L\(Self.n(x - 9)) \(Self.n(y + 28)) Z" fill="#333333"/>
            <text class="north-label" x="\(Self.n(x))" y="\(Self.n(y + 44))" text-anchor="middle" font-weight="bold">N</text>
            </g>

            """
    }

    /// The map as one HTML page with nothing to fetch: the SVG inline and
    /// a legend.
    public func html() -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(XML.escape(title))</title>
        <style>body{font-family:sans-serif;margin:16px;background:#fff;color:#222}svg{max-width:100%;height:auto;border:1px solid #ccc}
        .legend span{display:inline-block;margin-right:16px}.dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}</style>
        </head><body>
        <h1>\(XML.escape(title))</h1>
        <p class="legend"><span><i class="dot" style="background:#d0352b"></i>track</span><span><i class="dot" style="background:#2e9e44"></i>trip start</span><span><i class="dot" style="background:#222"></i>trip end</span><span><i class="dot" style="background:#f0a020"></i>alert</span><span><i class="dot" style="background:#3b7dd8"></i>fence</span></p>
        \(svg())</body></html>

        """
    }

    static func roundLength(_ m: Double) -> Double {
        guard m > 0, m.isFinite else { return 1 }
        let p = pow(10, floor(log10(m)))
        let d = m / p
        return (d >= 5 ? 5 : d >= 2 ? 2 : 1) * p
    }

    static func overlaps(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY
    }

    /// A number with at most one decimal.
    static func n(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
