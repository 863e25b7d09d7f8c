import Foundation

extension SplitMix64 {
    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * uniform()
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { uniform() < p }

    /// Standard normal (Box–Muller; one of the pair used).
    public mutating func normal() -> Double {
        let u = max(uniform(), 0x1p-60)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * uniform())
    }
}
