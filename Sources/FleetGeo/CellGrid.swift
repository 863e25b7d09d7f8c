/// The cells of `FenceIndex`'s hierarchy.
///
/// Level 0 is one square cell over lon −180…180, lat −90…270 (the part above
/// 90° stays empty); each level splits every cell into 8 × 8 children, so a
/// level-L cell is 360/8^L degrees wide (level 6: 0.0014°, about 150 m of
/// latitude; level 12, the deepest: about 0.6 mm). Positions map to integer
/// coordinates at the deepest level, so a cell's index at any level is a bit
/// shift away, and build and query agree on every cell exactly.
enum CellGrid {
    static let maxLevel = 12
    /// Integer units per degree at the deepest level (8^12 = 2^36 units per 360°).
    static let unitsPerDegree = Double(UInt64(1) << 36) / 360
    static let maxUnit = (UInt64(1) << 36) - 1

    /// Cell width in degrees at `level`.
    @inline(__always)
    static func size(_ level: Int) -> Double { 360 / Double(UInt64(1) << (3 * level)) }

    /// Deepest-level integer coordinate of a longitude (x) or latitude (y), clamped.
    @inline(__always)
    static func unitX(_ lon: Double) -> UInt64 { unit((lon + 180) * unitsPerDegree) }

    @inline(__always)
    static func unitY(_ lat: Double) -> UInt64 { unit((lat + 90) * unitsPerDegree) }

    @inline(__always)
    static func unit(_ v: Double) -> UInt64 {
        guard v > 0 else { return 0 }
        guard v < Double(maxUnit) else { return maxUnit }
        return UInt64(v)
    }

    /// Index at `level` of the cell holding deepest-level coordinate `u`.
    @inline(__always)
    static func index(_ u: UInt64, level: Int) -> UInt64 { u >> UInt64(3 * (maxLevel - level)) }

    /// The cell's bounds: (minX, minY, maxX, maxY) in degrees.
    @inline(__always)
    static func bounds(level: Int, ix: UInt64, iy: UInt64) -> (Double, Double, Double, Double) {
        let s = size(level)
        let x0 = -180 + Double(ix) * s
        let y0 = -90 + Double(iy) * s
        return (x0, y0, x0 + s, y0 + s)
    }

    /// The cell's centre in degrees: the reference point of its boundary entries.
    @inline(__always)
    static func center(level: Int, ix: UInt64, iy: UInt64) -> (Double, Double) {
        let s = size(level)
        return (-180 + (Double(ix) + 0.5) * s, -90 + (Double(iy) + 0.5) * s)
    }
}
