import Foundation

/// A seeded pseudo-random generator (xoshiro256**, seeded through SplitMix64) that gives
/// the same sequence on every machine and Swift version.
///
/// Every random choice in Coach flows from one of these, created from `--seed`. Use the
/// methods here rather than the standard library's `shuffle(using:)` or
/// `random(in:using:)`, whose algorithms are not guaranteed to stay the same.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    @usableFromInline var s0, s1, s2, s3: UInt64

    /// A generator whose whole sequence is determined by `seed`.
    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    /// The next 64 random bits.
    @inlinable
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// An independent generator for a sub-task, derived deterministically from this one.
    public mutating func fork() -> SeededGenerator { SeededGenerator(seed: next()) }

    /// A uniform float in [0, 1) with 24 random bits.
    @inlinable
    public mutating func nextUniform() -> Float { Float(next() >> 40) * 0x1p-24 }

    /// A uniform float in [lower, upper).
    public mutating func nextUniform(_ lower: Float, _ upper: Float) -> Float {
        lower + (upper - lower) * nextUniform()
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func nextDouble() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A standard normal sample (Box–Muller).
    public mutating func nextNormal() -> Float {
        let u1 = Swift.max(nextDouble(), 0x1p-53)
        let u2 = nextDouble()
        return Float((-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * Double.pi * u2))
    }

    /// A uniform integer in 0..<upperBound (Lemire's unbiased method).
    public mutating func nextInt(below upperBound: Int) -> Int {
        precondition(upperBound > 0, "nextInt(below:) needs a positive bound")
        let bound = UInt64(upperBound)
        var m = next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
        }
        return Int(m.high)
    }

    /// A uniform integer in `range`.
    public mutating func nextInt(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + nextInt(below: range.count)
    }

    /// True with probability `p`.
    public mutating func nextBool(probability p: Float = 0.5) -> Bool { nextUniform() < p }

    /// Shuffles `array` in place (Fisher–Yates).
    public mutating func shuffle<T>(_ array: inout [T]) {
        if array.count < 2 { return }
        for i in stride(from: array.count - 1, to: 0, by: -1) {
            array.swapAt(i, nextInt(below: i + 1))
        }
    }

    /// A shuffled copy of `array`.
    public mutating func shuffled<T>(_ array: [T]) -> [T] {
        var copy = array
        shuffle(&copy)
        return copy
    }
}
